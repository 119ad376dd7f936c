/* build_info.c: the compiler, flags, git revision and version fixed at build time. */
#include "build_info.h"
#include "fabricbench.h"

const char *fb_build_cc(void) { return FB_BUILD_CC; }
const char *fb_build_flags(void) { return FB_BUILD_FLAGS; }
const char *fb_build_git(void) { return FB_BUILD_GIT; }
const char *fb_version(void) { return FB_VERSION; }
