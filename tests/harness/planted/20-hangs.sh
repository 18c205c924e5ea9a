# Planted: declares two cases, reports one, then hangs past its timeout.
# suite-timeout: 3
. "$ROOT/tests/lib.sh"
expect hangs-a hangs-b
pass hangs-a
sleep 600
pass hangs-b
