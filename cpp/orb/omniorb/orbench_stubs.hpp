// omniORB: `omniidl -bcxx orbench.idl` puts stubs and POA skeletons in one header.
#pragma once

#include "orbench.hh"

// Built with -Wba -Wbami and linked with omniDynamic4: the DII, the DSI and AMI (orb_shapes.hpp).
#define ORBENCH_HAS_DYNAMIC 1
#define ORBENCH_HAS_AMI 1
