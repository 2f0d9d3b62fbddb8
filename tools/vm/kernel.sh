# SPDX-License-Identifier: GPL-2.0
# Shared by tools/vmrun and the Makefile: which Debian 6.1 kernel to use.

# ordo_kver - newest 6.1 amd64 kernel with both image and headers installed.
ordo_kver() {
	local d v best=
	for d in /usr/src/linux-headers-6.1.*-amd64; do
		[ -d "$d" ] || continue
		v=${d#/usr/src/linux-headers-}
		[ -f "/boot/vmlinuz-$v" ] && [ -d "/lib/modules/$v/kernel" ] || continue
		best=$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n 1)
	done
	[ -n "$best" ] && echo "$best"
}
