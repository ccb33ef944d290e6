#!/bin/sh
# The interpreter a new environment is made with: `interpreter.sh <PY> "<supported Pythons>"`
# prints its path, or says why there is none and exits 1, before anything is downloaded.
# PY empty: the default `python3`. pyenv's shims name every installed version but run only
# the selected one, so a version that a shim refuses is looked up in pyenv's own tree.
py=$1
supported=$2
name=python${py:-3}
path=$(command -v "$name" 2>/dev/null)
if ! "$name" -c '' 2>/dev/null && [ -n "$py" ] && command -v pyenv >/dev/null 2>&1; then
    version=$(pyenv versions --bare 2>/dev/null | grep -E "^$py\.[0-9]+$" | sort -t. -k3,3n | tail -n 1)
    [ -n "$version" ] && path=$(pyenv root)/versions/$version/bin/$name
fi
if [ -z "$path" ] || ! "$path" -c '' 2>/dev/null; then
    echo "error: no $name on this machine; install Python ${py:-3} or choose another with PY= (supported: $supported)" >&2
    exit 1
fi
minor=$("$path" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
case " $supported " in
    *" $minor "*) ;;
    *)
        echo "error: $name is Python $minor; this handbook supports Python $supported: choose one with PY=<version>" >&2
        exit 1
        ;;
esac
echo "$path"
