#!/bin/sh
# The merged desktop entry or AppStream metainfo, as it is installed: valid for its
# validator (desktop-file-validate; appstreamcli validate without network checks), and
# with the German translation merged in.
#
#   validate-desktop.sh desktop|metainfo FILE
#
# Exit status 0 when valid and translated, 1 otherwise, 77 (skipped) without the validator.
set -u
kind=$1
file=$2

case $kind in
desktop)
    tool=desktop-file-validate package=desktop-file-utils
    translated='^GenericName\[de\]='
    ;;
metainfo)
    tool=appstreamcli package=appstream
    translated='<summary xml:lang="de">'
    ;;
*)
    echo "usage: validate-desktop.sh desktop|metainfo FILE" >&2
    exit 2
    ;;
esac
if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$tool is not installed ($package): $kind validation skipped"
    exit 77
fi

status=0
if [ "$kind" = desktop ]; then
    # It prints only problems and fails only on errors: warnings and hints fail here too.
    report=$(desktop-file-validate "$file") || status=1
    if [ -n "$report" ]; then
        printf '%s\n' "$report"
        status=1
    fi
else
    # Warnings fail too; pedantic remarks do not.
    appstreamcli validate --no-net --explain "$file" || status=1
fi
if [ "$status" = 0 ]; then echo "ok - $file is valid"; else echo "FAILED - $file is not valid"; fi

if grep -q -- "$translated" "$file"; then
    echo "ok - $file holds the German translation"
else
    echo "FAILED - $file holds no German translation ($translated)"
    status=1
fi
exit $status
