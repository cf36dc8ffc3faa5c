#!/bin/sh
# SPDX-License-Identifier: MIT
# /init of the stock-kernel guest: runs trawl-ktrace (static) on the paths this
# machine's own kernel refuses, then prints each trace as base64'd tar between
# "TRACE-BEGIN <name>" and "TRACE-END" lines for the host to check with bt2.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
echo "GUEST: kernel $(uname -r)"
KT=/tests/trawl-ktrace-static
opens='i=0; while [ $i -lt 5 ]; do cat /etc/hostname >/dev/null; i=$((i+1)); done'
run() { # NAME ARGS...
  name=$1; shift
  $KT -o /tmp/$name "$@" -- sh -c "$opens" > /tmp/$name.out 2>&1
  echo "RESULT $name rc=$? $(tail -1 /tmp/$name.out)"
  if [ -d /tmp/$name ]; then
    echo "TRACE-BEGIN $name"
    (cd /tmp && tar cf - $name | gzip -1 | base64)
    echo "TRACE-END"
  fi
}
run kprobe -x tid -p kp=do_sys_openat2
run kretprobe -f fn=do_sys_openat2
run tracepoint -s openat -e sched_process_exec
# without kprobes: the instance's function tracer
TRAWL_KERNEL_NO_KPROBES=1 run functiontracer -f fn=do_sys_openat2
# BPF fentry: loading must succeed here; trawl then says it needs kprobes for records
TRAWL_KERNEL_NO_KPROBES=1 TRAWL_KERNEL_NO_FTRACE=1 $KT -o /tmp/fentry -f fn=do_sys_openat2 -- true > /tmp/fentry.out 2>&1
echo "RESULT fentry rc=$? $(tail -1 /tmp/fentry.out)"
# Client text never reaches kprobe_events or set_ftrace_filter as given: fetch
# arguments, comments and ftrace commands are refused (src/kernel/check.c) on
# a kernel that would take them; a kprobe at SYMBOL+OFFSET is written as we format it.
refuse() { # NAME ARGS...: runs trawl-ktrace expecting a refusal
  name=$1; shift
  $KT -o /tmp/$name "$@" -- true > /tmp/$name.out 2>&1
  echo "RESULT $name rc=$? $(tail -1 /tmp/$name.out)"
}
refuse inject-kprobe -p 'kp=do_sys_openat2 x=+0(%si):string'
refuse inject-comment -p 'kp=do_sys_openat2#'
refuse inject-function -f 'fn=do_sys_openat2 x=+0(%si):string'
TRAWL_KERNEL_NO_KPROBES=1 refuse inject-ftrace -f 'fn=schedule:traceoff'
refuse inject-name -p 'k p=do_sys_openat2'
echo "RESULT leftover-kprobes n=$(grep -c trawl_ /sys/kernel/tracing/kprobe_events)"
run kprobe-offset -p kp=do_sys_openat2+0
# a uprobe is defined on the file trawl opened (/proc/self/fd/N): main() of a
# second trawl-ktrace-static, which exits at once ("-o DIR is required")
$KT -o /tmp/uprobe -u "u=elf:$KT:main" -- $KT > /tmp/uprobe.out 2>&1
echo "RESULT uprobe rc=$? $(tail -1 /tmp/uprobe.out)"
(cd /tmp && tar cf - uprobe | gzip -1 | base64 | sed '1i TRACE-BEGIN uprobe' | sed '$a TRACE-END')
# add-trigger --type=kernel:kprobe: the trigger's notifier alone (ktrig.c)
TG=/tests/ktrig-static
trig() { # NAME LOCATION
  out=$($TG "$2"); echo "RESULT $1 rc=$? $out"
}
trig trig-sym do_sys_openat2
trig trig-off do_sys_openat2+0
trig trig-addr 0x$(grep ' do_sys_openat2$' /proc/kallsyms | cut -d' ' -f1)
trig trig-inject 'do_sys_openat2 x=+0(%si):string'
echo "GUEST-DONE"
# qemu exits through isa-debug-exit (port 0xf4)
printf '\000' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
poweroff -f
