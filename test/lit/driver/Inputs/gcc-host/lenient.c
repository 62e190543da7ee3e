/* C that gcc 12 (Debian 12's, nvcc's host compiler) accepts with warnings
   and clang 19 refuses. */
static counter = 0; /* IMPLICIT_INT */
int *from_integer(long v) { return v; } /* INT_CONVERSION */
int takes_int(int);
void (*wrong)(void) = takes_int; /* FUNCTION_POINTER */
int no_value(void) { return; } /* RETURN_MISMATCH */
int implicit_call(void) { return undeclared_function(counter); } /* IMPLICIT_DECL */
