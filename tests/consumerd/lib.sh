# SPDX-License-Identifier: MIT
# small_disk DIR: a 2 MiB tmpfs (mode 0755: a root relayd writes only in a
# folder others cannot change) mounted on DIR, made here; exits 77 with a
# SKIP line when mounting is not allowed. The caller's EXIT trap unmounts it.
small_disk() {
	mkdir -p "$1"
	if ! mount -t tmpfs -o size=2m,mode=0755 tmpfs "$1" 2>"$T/mount.err"; then
		echo "SKIP: cannot mount a tmpfs: $(cat "$T/mount.err")"
		exit 77
	fi
}
