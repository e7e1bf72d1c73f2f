/* Names in the order people expect: digit runs compare as numbers, so
 * "bs8" comes before "bs16". */
#ifndef NSYSP_TOOL_NATURAL_ORDER_H
#define NSYSP_TOOL_NATURAL_ORDER_H

int natural_compare(const char *a, const char *b);

#endif
