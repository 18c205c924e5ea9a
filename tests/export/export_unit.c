/* A unit whose symbols a shared library opened after it calls back into. */
int unit_counter = 5;

int unit_callback(int x)
{
    return x * 3 + unit_counter;
}
