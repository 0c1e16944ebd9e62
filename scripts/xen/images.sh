#!/bin/sh
# SPDX-License-Identifier: MIT
# make xen-images: the real-Xen test bed's boot files, from Debian packages.
#   scripts/xen/images.sh BUILD_DIR
# Environment (set by the Makefile):
#   XEN_DOM0_BINS  programs for dom0's /usr/bin (ringtrace, test programs)
#   XEN_DOMU_BINS  programs for the domU's /usr/bin (the guest programs)
#   XEN_CACHE      where the .deb files are kept (default BUILD_DIR/xen/debs)
#
# The packages are fetched with `apt-get download` (nothing is installed on
# the host), unpacked with `dpkg -x` (the kernel package: only its image and
# the handful of modules used), and assembled into
#   BUILD_DIR/xen/xen.elf        the hypervisor (xen-4.17-amd64.gz, gunzipped)
#   BUILD_DIR/xen/vmlinux        dom0's kernel (linux-image-amd64's, as ELF)
#   BUILD_DIR/xen/dom0.cpio      dom0's initramfs: busybox, xenstored,
#                                xenconsoled, xl, the Xen drivers, the tests,
#                                and the domU's kernel and initramfs in /boot
#   BUILD_DIR/xen/domU.cpio      the domU's initramfs: busybox, the guest drivers,
#                                the guest programs
# Every library a program needs is found in the unpacked packages (not on the
# host), following DT_NEEDED; a missing one stops the build naming it.
# A second run downloads nothing and rebuilds only the initramfs images.
set -eu

build=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
top=$build/xen
cache=${XEN_CACHE:-$top/debs}
unpack=$top/unpack
xen_ver=4.17

# Packages.  The libraries are those of the programs copied in (xl,
# xenstored, xenconsoled, xenstore-*, and ringtrace's, which use liburcu and liburing);
# libgcc-s1 because glibc loads libgcc_s.so.1 at thread exit, unlisted.
PKGS="xen-hypervisor-$xen_ver-amd64 xen-utils-$xen_ver xenstore-utils busybox-static
linux-image-amd64 libc6 libgcc-s1 liburcu8 liburing2
libxenmisc$xen_ver libxencall1 libxendevicemodel1 libxenevtchn1 libxenforeignmemory1
libxengnttab1 libxenstore4 libxentoolcore1 libxentoollog1 libxenhypfs1
libyajl2 libuuid1 zlib1g liblzma5 libzstd1"

# Kernel modules, loaded in this order (dependencies first).  Xen's device
# drivers: event channels, grant mapping (dom0) and grant allocation (guest),
# xenfs (/proc/xen, for xenstored), privcmd (hypercalls, for xl); dom0's
# virtio disk carries the results out.
DOM0_MODS="drivers/xen/xen-evtchn drivers/xen/xen-gntdev drivers/xen/xen-gntalloc
drivers/xen/xen-privcmd drivers/xen/xenfs/xenfs
drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_legacy_dev
drivers/virtio/virtio_pci_modern_dev drivers/virtio/virtio_pci drivers/block/virtio_blk"
DOMU_MODS="drivers/xen/xen-evtchn drivers/xen/xen-gntalloc drivers/xen/xen-gntdev"

# The Xen libraries ringtrace uses, in both images whatever the programs'
# DT_NEEDED say (a library loaded with dlopen() is not listed there);
# libxenctrl in dom0 only (the domain's state, for consume's liveness).
XEN_RTR_LIBS="libxenevtchn.so.1 libxengnttab.so.1 libxenstore.so.4 libxentoollog.so.1"
XEN_RTR_DOM0_LIBS="$XEN_RTR_LIBS libxenctrl.so.4.17"

# Xen's programs as the images carry them: xl and the daemons dom0 needs.
XEN_BINS="xl xenstored xenconsoled xen-init-dom0"

say() { printf '  %-7s %s\n' "$1" "$2"; }
die() { echo "xen-images: $*" >&2; exit 1; }

for t in apt-get dpkg dpkg-deb cpio readelf objcopy gzip xz od; do
	command -v "$t" >/dev/null 2>&1 ||
		die "'$t' is missing (scripts/deps.sh xen names the packages)"
done

# ---- 1. download (cached) ---------------------------------------------------
mkdir -p "$cache"
have() { ls "$cache/$1"_*.deb >/dev/null 2>&1; }
fetch() {
	# apt-get download writes into the current directory; its sandbox
	# user cannot write a root-owned cache, hence Sandbox::User.
	(cd "$cache" && apt-get -q -o APT::Sandbox::User=root download "$@" >download.log 2>&1) && return 0
	if [ "$(id -u)" -eq 0 ]; then
		say APT "update (package lists missing or stale)"
		apt-get update -qq >/dev/null 2>&1 || true
		(cd "$cache" && apt-get -q -o APT::Sandbox::User=root download "$@" >download.log 2>&1) && return 0
	fi
	cat "$cache/download.log" >&2
	die "apt-get download failed for: $*"
}
need=
for p in $PKGS; do have "$p" || need="$need $p"; done
if [ -n "$need" ]; then
	say FETCH "$need"
	# shellcheck disable=SC2086
	fetch $need
fi
# linux-image-amd64 is a meta package: the kernel is the package it depends on.
meta=$(ls "$cache"/linux-image-amd64_*.deb | tail -n 1)
kpkg=$(dpkg-deb -f "$meta" Depends | sed 's/[ ,(].*//')
[ -n "$kpkg" ] || die "cannot tell the kernel package from $meta"
if ! have "$kpkg"; then
	say FETCH "$kpkg"
	fetch "$kpkg"
fi
kdeb=$(ls "$cache/$kpkg"_*.deb | tail -n 1)
kver=${kpkg#linux-image-}

# ---- 2. unpack (once per set of packages) -----------------------------------
debs=$(for p in $PKGS $kpkg; do ls "$cache/$p"_*.deb | tail -n 1; done)
stamp=$unpack/.debs
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$debs" ]; then
	say UNPACK "$(echo "$debs" | wc -l) packages into ${unpack#"$build"/}"
	rm -rf "$unpack"
	mkdir -p "$unpack"
	for d in $debs; do
		[ "$d" = "$kdeb" ] || dpkg -x "$d" "$unpack"
	done
	# The kernel package is 400 MB unpacked: take its image and our modules.
	# shellcheck disable=SC2046
	dpkg-deb --fsys-tarfile "$kdeb" | tar -x -C "$unpack" \
		"./boot/vmlinuz-$kver" \
		$(for m in $DOM0_MODS $DOMU_MODS; do echo "./lib/modules/$kver/kernel/$m.ko"; done | sort -u)
	echo "$debs" >"$stamp"
fi
xenbin=$unpack/usr/lib/xen-$xen_ver/bin
[ -x "$xenbin/xl" ] || die "xen-utils-$xen_ver has no $xenbin/xl"

# ---- 3. the hypervisor and the kernel ----------------------------------------
gunzip -c "$unpack/boot/xen-$xen_ver-amd64.gz" >"$top/xen.elf.tmp"
mv "$top/xen.elf.tmp" "$top/xen.elf"
# The kernel's ELF image, out of the bzImage: under emulation, Xen takes 10 s
# to unpack the xz payload for dom0, and xl 8 s for a domU; an ELF image
# costs them nothing (dom0's is a module QEMU loads; the domU's goes into
# dom0's initramfs gzip -1'd, 12 MB, which libxenguest inflates in 2 s).
# Where the payload is: Linux's boot protocol (setup_sects at 0x1f1,
# payload_offset and payload_length at 0x248 and 0x24c).
vmlinux=$top/vmlinux
if [ ! -f "$vmlinux.gz" ] || [ "$(cat "$vmlinux.src" 2>/dev/null)" != "$kdeb" ]; then
	bz=$unpack/boot/vmlinuz-$kver
	u8() { od -An -tu1 -j "$1" -N1 "$bz" | tr -d ' '; }
	u32() { od -An -tu4 -j "$1" -N4 "$bz" | tr -d ' '; }
	off=$((($(u8 497) + 1) * 512 + $(u32 584)))
	len=$(u32 588)
	magic=$(od -An -tx1 -j "$off" -N4 "$bz" | tr -d ' ')
	# The payload ends with its unpacked size (4 bytes) after the stream.
	case $magic in
	fd377a58) unz="xz -dc --single-stream" ;;
	1f8b*) unz="gzip -dcq" ;;
	*) die "$bz: payload at $off is neither xz nor gzip (magic $magic)" ;;
	esac
	say GEN "${vmlinux#"$build"/} (the ELF image in $kpkg's vmlinuz)"
	# (gzip warns of that trailer: the ELF check below is the test.)
	tail -c +$((off + 1)) "$bz" | head -c "$len" | $unz >"$vmlinux.tmp" || [ "$magic" != fd377a58 ] ||
		die "cannot unpack the kernel image ($unz)"
	[ "$(od -An -c -N4 "$vmlinux.tmp" | tr -d ' ')" = '177ELF' ] ||
		die "$bz: its payload is not an ELF image"
	mv "$vmlinux.tmp" "$vmlinux"
	gzip -1 -c "$vmlinux" >"$vmlinux.gz"
	echo "$kdeb" >"$vmlinux.src"
fi

# ---- 4. the initramfs images ---------------------------------------------------
libdirs="lib/x86_64-linux-gnu usr/lib/x86_64-linux-gnu usr/lib/xen-$xen_ver/lib/x86_64-linux-gnu"

# add_lib ROOT NAME: copy the library NAME from the unpacked packages, and
# what it needs, into ROOT/lib/x86_64-linux-gnu.
add_lib() {
	[ -e "$1/lib/x86_64-linux-gnu/$2" ] && return 0
	for d in $libdirs; do
		if [ -e "$unpack/$d/$2" ]; then
			cp -L "$unpack/$d/$2" "$1/lib/x86_64-linux-gnu/$2"
			add_needed "$1" "$1/lib/x86_64-linux-gnu/$2"
			return 0
		fi
	done
	# The host's own, else: it is Debian 12 too (the viewer's and the
	# server's libraries, which the dom0 tests never load but ld.so needs).
	for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu; do
		if [ -e "$d/$2" ]; then
			cp -L "$d/$2" "$1/lib/x86_64-linux-gnu/$2"
			add_needed "$1" "$1/lib/x86_64-linux-gnu/$2"
			return 0
		fi
	done
	die "no package in the list, nor the host, provides $2 (needed in ${1##*/}); add it to PKGS in $0"
}
# add_needed ROOT FILE: the libraries FILE names in DT_NEEDED.
add_needed() {
	for n in $(readelf -d "$2" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		add_lib "$1" "$n"
	done
}
# add_prog ROOT FILE [NAME]: a program into ROOT/usr/bin, with its libraries.
add_prog() {
	[ -f "$2" ] || die "no program $2 (build it first: make all)"
	cp -L "$2" "$1/usr/bin/${3:-${2##*/}}"
	add_needed "$1" "$2"
}
# add_mods ROOT MODULES: the modules, and the order /init loads them in
# (each after those it depends on, as its .modinfo names them).
add_mods() {
	mkdir -p "$1/lib/modules"
	: >"$1/lib/modules/load"
	for m in $2; do
		ko=$unpack/lib/modules/$kver/kernel/$m.ko
		for dep in $(objcopy -O binary --only-section=.modinfo "$ko" /dev/stdout |
			tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' ' '); do
			grep -qx "$(echo "$dep" | tr _ -).ko" "$1/lib/modules/load.names" 2>/dev/null ||
				die "module ${m##*/} needs $dep: list it before it (DOM0_MODS/DOMU_MODS in $0)"
		done
		cp "$ko" "$1/lib/modules/"
		echo "${m##*/}.ko" >>"$1/lib/modules/load"
		echo "${m##*/}.ko" | tr _ - >>"$1/lib/modules/load.names"
	done
	rm -f "$1/lib/modules/load.names"
}
new_root() {
	rm -rf "$1"
	mkdir -p "$1/bin" "$1/usr/bin" "$1/lib/x86_64-linux-gnu" "$1/lib64" \
		"$1/proc" "$1/sys" "$1/dev" "$1/tmp" "$1/run" "$1/var" "$1/etc" "$1/tests"
	cp "$unpack/bin/busybox" "$1/bin/busybox"
	cp -L "$unpack/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" "$1/lib64/ld-linux-x86-64.so.2"
	add_lib "$1" libgcc_s.so.1
	cp "$here"/tests/xen/real/*.sh "$1/tests/"
	chmod 755 "$1/tests/"*.sh
}
mk_cpio() {
	(cd "$1" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$2.tmp"
	mv "$2.tmp" "$2"
	say CPIO "${2#"$build"/} ($(($(wc -c <"$2") / 1048576)) MB)"
}

# xenstore-read, -write, -ls, ...: one program, named by argv[0].
add_xenstore() {
	add_prog "$1" "$unpack/usr/bin/xenstore"
	for n in read write ls list exists rm chmod watch; do ln -s xenstore "$1/usr/bin/xenstore-$n"; done
}

# The domU.
r=$top/domU-root
new_root "$r"
cp "$here/tests/xen/real/init-domU" "$r/init"
chmod 755 "$r/init"
add_mods "$r" "$DOMU_MODS"
add_xenstore "$r"
for b in ${XEN_DOMU_BINS:-}; do add_prog "$r" "$b"; done
for l in $XEN_RTR_LIBS; do add_lib "$r" "$l"; done
mk_cpio "$r" "$top/domU.cpio"

# dom0.
r=$top/dom0-root
new_root "$r"
cp "$here/tests/xen/real/init-dom0" "$r/init"
chmod 755 "$r/init"
add_mods "$r" "$DOM0_MODS"
for b in $XEN_BINS; do add_prog "$r" "$xenbin/$b"; done
add_xenstore "$r"
for b in ${XEN_DOM0_BINS:-}; do add_prog "$r" "$b"; done
for l in $XEN_RTR_DOM0_LIBS; do add_lib "$r" "$l"; done
mkdir -p "$r/boot" "$r/etc/xen"
: >"$r/etc/xen/xl.conf"
cp "$vmlinux.gz" "$r/boot/vmlinux.gz"
cp "$top/domU.cpio" "$r/boot/domU.cpio"
mk_cpio "$r" "$top/dom0.cpio"
