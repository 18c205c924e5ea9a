/* A shared library that needs symbols its loader exports (as an extension module needs
 * its interpreter's): unit_callback and unit_counter stay undefined until dlopen. */
int unit_callback(int x);
extern int unit_counter;

int plugin_run(void)
{
    unit_counter++;
    return unit_callback(10) + 1;
}
