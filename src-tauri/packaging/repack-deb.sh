#!/bin/sh
# Re-packs the .deb Tauri's bundler wrote so that the same commit gives the same bytes
# (docs/packaging.md, "Reproducible"). The bundler stamps each file with its mtime (the
# binary's link time, the icons' copy time) and the ar members with the build time, and
# lists files in directory order; dpkg-deb clamps every time to SOURCE_DATE_EPOCH, sorts
# the file lists and dates the ar members SOURCE_DATE_EPOCH. Owners root:root, modes
# without the builder's umask.
#
#   SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) src-tauri/packaging/repack-deb.sh PKG.deb
set -eu
deb=$1
: "${SOURCE_DATE_EPOCH:?set SOURCE_DATE_EPOCH (the Makefile sets it to the commit time)}"
export SOURCE_DATE_EPOCH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -R "$deb" "$tmp/pkg"
chmod -R u+rwX,go+rX,go-w "$tmp/pkg"
find "$tmp/pkg" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
dpkg-deb --root-owner-group -Zgzip --build "$tmp/pkg" "$tmp/out.deb" >/dev/null
mv "$tmp/out.deb" "$deb"
