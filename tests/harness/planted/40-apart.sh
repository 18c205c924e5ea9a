# Planted control: everything passes; a product check and a harness self-check.
. "$ROOT/tests/lib.sh"
expect apart-product
expect_harness apart-self
pass apart-product
hpass apart-self
