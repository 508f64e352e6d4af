// SPDX-License-Identifier: GPL-2.0
/* check --file: the macro is defined in the file, its parameter is an index. */
#include <linux/iio/sysfs.h>

#define IIO_DEV_ATTR_PHASE_CONFIG(_idx)					\
IIO_DEVICE_ATTR(in_proximity_configuration##_idx, 0644,		\
		sx9324_phase_configuration_show,			\
		sx9324_phase_configuration_store, _idx)

static IIO_DEV_ATTR_PHASE_CONFIG(0);
static IIO_DEV_ATTR_PHASE_CONFIG(1);
static IIO_DEV_ATTR_PHASE_CONFIG(2);
static IIO_DEV_ATTR_PHASE_CONFIG(3);
