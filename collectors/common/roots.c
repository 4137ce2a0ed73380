/* The shadow stack's top, one per program, shared by every collector build. */
#include "gcr.h"

struct gcr_frame *gcr_roots_top;
