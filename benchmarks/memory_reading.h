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

/* Resident bytes that are this process's data: anonymous and shared-memory pages (RssAnon + RssShmem), not
 * file-backed ones.  VmRSS also counts library code the first time a path runs -- MPICH's text pages faulted
 * in during a measurement (64 KB of libmpich.so in one run, /proc/self/smaps), which are per node, once. */
static inline long data_rss_bytes(void)
{
    char line[256];
    long kb = 0, found = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "RssAnon:", 8) == 0 || strncmp(line, "RssShmem:", 9) == 0) {
            kb += atol(strchr(line, ':') + 1);
            found++;
        }
    fclose(f);
    return found == 2 ? kb * 1024 : -1;
}

static inline long heap_bytes(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (long)(mi.uordblks + mi.hblkhd);
}
