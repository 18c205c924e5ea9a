# Planted: declares three cases, reports one, then the suite itself is killed (SIGSEGV).
. "$ROOT/tests/lib.sh"
expect dies-a dies-b dies-c
pass dies-a
kill -SEGV $$
pass dies-b
