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
echo "GUEST-DONE"
# qemu exits through isa-debug-exit (port 0xf4)
printf '\000' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
poweroff -f
