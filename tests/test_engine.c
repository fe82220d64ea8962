/* placeholder: replaced by the real suite */
int main(void) { return 77; }
