/* tilegen version, printed by --version and written into every generated banner. */
#ifndef TILEGEN_VERSION_H
#define TILEGEN_VERSION_H
#define TILEGEN_VERSION "0.1.0"
#endif
