/* The other half of the TLS fixture: the definition of an extern thread-local. */
__thread int other = 100;
int other_bump(int by)
{
    other += by;
    return other;
}
