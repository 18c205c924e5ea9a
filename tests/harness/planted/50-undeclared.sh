# Planted: reports a case it never declared (a suite written before declarations).
. "$ROOT/tests/lib.sh"
pass undeclared-a
