#!/usr/bin/env bash
# Builds the .deb with CPack, unpacks it into a scratch folder and runs the packaged
# paraplan-cli from there; validates the desktop file and AppStream metadata.
set -euo pipefail
build=$1 src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$build"
cpack -G DEB -B "$work/pkg" >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$work"/pkg/paraplan_*.deb)
echo "built $(basename "$deb") ($(du -h "$deb" | cut -f1))"
dpkg-deb --info "$deb" | grep -E "^ (Package|Version|Depends):"
# dpkg-shlibdeps must have found the Qt libraries we link, and toml++ (core reads torchtitan TOML with it).
dpkg-deb --field "$deb" Depends | grep -q libqt6core6 || { echo "Depends lacks libqt6core6"; exit 1; }
dpkg-deb --field "$deb" Depends | grep -q libtomlplusplus3 || { echo "Depends lacks libtomlplusplus3"; exit 1; }
dpkg-deb -x "$deb" "$work/root"
for f in usr/bin/paraplan usr/bin/paraplan-cli usr/share/applications/io.paraplan.Paraplan.desktop \
         usr/share/metainfo/io.paraplan.Paraplan.metainfo.xml usr/share/mime/packages/io.paraplan.Paraplan.xml \
         usr/share/icons/hicolor/scalable/apps/io.paraplan.Paraplan.svg \
         usr/share/icons/hicolor/256x256/apps/io.paraplan.Paraplan.png usr/share/man/man1/paraplan-cli.1 \
         usr/share/bash-completion/completions/paraplan-cli usr/share/zsh/vendor-completions/_paraplan-cli \
         usr/share/paraplan/examples/gpt2-1node.paraplan.json usr/share/paraplan/catalog/gpus.json; do
  [[ -e $work/root/$f ]] || { echo "missing in package: $f"; exit 1; }
done
"$work/root/usr/bin/paraplan-cli" --version
"$work/root/usr/bin/paraplan-cli" validate "$work/root/usr/share/paraplan/examples/gpt2-1node.paraplan.json"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$work/root/usr/share/applications/io.paraplan.Paraplan.desktop"
fi
if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net --pedantic "$work/root/usr/share/metainfo/io.paraplan.Paraplan.metainfo.xml" || \
  appstreamcli validate --no-net "$work/root/usr/share/metainfo/io.paraplan.Paraplan.metainfo.xml"
fi
man -l "$work/root/usr/share/man/man1/paraplan-cli.1" >/dev/null 2>&1 || zcat -f "$work/root/usr/share/man/man1/paraplan-cli.1" | head -n 3
echo "package OK"
