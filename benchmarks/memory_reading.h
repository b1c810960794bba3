/* Memory readings shared by the scale benchmarks (scale.c, scale_ga.c): resident bytes of this process and
 * the bytes malloc has handed out.  Resident memory is page-granular; the heap figure is exact and is the
 * one that shows a library's own tables. */
#pragma once

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline long vm_rss_bytes(void)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kb = atol(line + 6);
            break;
        }
    fclose(f);
    return kb * 1024;
}

static inline long heap_bytes(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (long)(mi.uordblks + mi.hblkhd);
}
