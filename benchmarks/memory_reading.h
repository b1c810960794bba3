/* Memory readings shared by the scale benchmarks (scale.c, scale_ga.c): resident bytes of this process and
 * the bytes malloc has handed out.  Resident memory is page-granular; the heap figure is exact and is the
 * one that shows a library's own tables. */
#pragma once

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sum of the given kB fields of /proc/self/status, in bytes; -1 if the file or any field is missing. */
static inline long status_bytes(const char *const *fields, int nfields)
{
    char line[256];
    long kb = 0;
    int found = 0, k;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        for (k = 0; k < nfields; k++)
            if (strncmp(line, fields[k], strlen(fields[k])) == 0) {
                kb += atol(line + strlen(fields[k]));
                found++;
            }
    fclose(f);
    return found == nfields ? kb * 1024 : -1;
}

static inline long vm_rss_bytes(void)
{
    static const char *const fields[] = {"VmRSS:"};
    return status_bytes(fields, 1);
}

/* Resident bytes that are this process's data: anonymous and shared-memory pages (RssAnon + RssShmem), not
 * file-backed ones.  VmRSS also counts library code the first time a path runs -- MPICH's text pages faulted
 * in during a measurement (64 KB of libmpich.so in one run, /proc/self/smaps), which are per node, once. */
static inline long data_rss_bytes(void)
{
    static const char *const fields[] = {"RssAnon:", "RssShmem:"};
    return status_bytes(fields, 2);
}

static inline long heap_bytes(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (long)(mi.uordblks + mi.hblkhd);
}
