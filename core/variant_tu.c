/*
 * core/variant_tu.c - one variant: the project's kernel-dialect sources on
 * the compatibility header, plus its registration. Built once per
 * (configuration, granule) by build/subjects.bzl.
 */
#include "core/kcompat.h"
#include "core/kernel/pgtable_helpers.h"

#include "core/kernel/pgtable.c"
#include "core/kernel/contpte.c"

#include "core/variant_export.h"
