#include "natural_order.h"

#include <string.h>

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

int natural_compare(const char *a, const char *b)
{
    while (*a && *b) {
        if (is_digit(*a) && is_digit(*b)) {
            while (*a == '0')
                a++;
            while (*b == '0')
                b++;
            size_t na = 0, nb = 0;
            while (is_digit(a[na]))
                na++;
            while (is_digit(b[nb]))
                nb++;
            if (na != nb) /* more digits, larger number */
                return na < nb ? -1 : 1;
            int c = strncmp(a, b, na);
            if (c)
                return c;
            a += na;
            b += nb;
        } else {
            if (*a != *b)
                return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++;
            b++;
        }
    }
    return *a ? 1 : *b ? -1 : 0;
}
