/* version.h — the harness version, recorded with every session. */
#ifndef VERSION_H
#define VERSION_H

#define GCRATCHET_VERSION "0.1.0"

#endif /* VERSION_H */
