// What the api layer's files share: the weak alias that makes each ARMCI_x an alias of PARMCI_x, so that a
// tool (or the application) may define ARMCI_x itself and call PARMCI_x underneath (doc/design.md, "Layers").
#pragma once

#define ARMCIX_WEAK_ALIAS(name) __attribute__((weak, alias("P" #name)))
