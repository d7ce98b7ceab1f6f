#!/bin/sh
# The README's set-up command (the line under "Set up on Debian 12" that starts with
# SUDO=) run as written, with stand-ins for apt-get, sudo, id, meson and the editor on
# PATH that only log what they were asked: as root without sudo installed, and as a user.
# It must read the package lists before installing, use sudo only when not root, build,
# and open the editor from the build folder.
#
#   readme-setup-test.sh README OUT
set -u
readme=$1
out=$2
rm -rf "$out"
mkdir -p "$out"
command=$(grep -m1 '^SUDO=' "$readme")
if [ -z "$command" ]; then
    echo "FAILED - the README has no set-up command starting with SUDO="
    exit 1
fi
failures=0
check() { # OK WHAT
    if [ "$1" = 0 ]; then echo "ok - $2"; else echo "FAILED - $2"; failures=$((failures + 1)); fi
}

for who in root user; do
    bin="$out/$who/bin"
    mkdir -p "$bin" "$out/$who/work/build/editor"
    for tool in apt-get meson; do
        printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$tool" "$out/$who/log" >"$bin/$tool"
    done
    if [ "$who" = root ]; then uid=0; else uid=1000; fi
    printf '#!/bin/sh\necho %s\n' "$uid" >"$bin/id"
    if [ "$who" = user ]; then
        printf '#!/bin/sh\necho "sudo $*" >>"%s"\nexec "$@"\n' "$out/$who/log" >"$bin/sudo"
    fi
    printf '#!/bin/sh\necho "editor $*" >>"%s"\n' "$out/$who/log" >"$out/$who/work/build/editor/allium"
    chmod +x "$bin"/* "$out/$who/work/build/editor/allium"
    (cd "$out/$who/work" && PATH="$bin:/usr/bin:/bin" sh -c "$command")
    check $? "as $who the command exits with 0"
    log="$out/$who/log"
    echo "# $who:"; sed 's/^/#   /' "$log"
    update=$(grep -n '^apt-get update' "$log" | head -1 | cut -d: -f1)
    install=$(grep -n '^apt-get install -y ' "$log" | head -1 | cut -d: -f1)
    [ -n "$update" ] && [ -n "$install" ] && [ "$update" -lt "$install" ]
    check $? "as $who apt-get update runs before apt-get install"
    if [ "$who" = root ]; then
        ! grep -q '^sudo' "$log"
        check $? "as root sudo is not used (nor needed)"
    else
        [ "$(grep -c '^sudo apt-get' "$log")" = 2 ]
        check $? "as a user both apt-get runs go through sudo"
    fi
    grep -q '^meson setup build$' "$log" && grep -q '^meson compile -C build$' "$log"
    check $? "as $who it configures and builds in build/"
    [ "$(tail -1 "$log")" = "editor " ]
    check $? "as $who it ends by opening build/editor/allium"
done
[ "$failures" = 0 ]
