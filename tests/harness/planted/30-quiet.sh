# Planted: declares a case and exits 0 without reporting it.
. "$ROOT/tests/lib.sh"
expect quiet-a
exit 0
