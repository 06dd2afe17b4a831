// omniORB: `omniidl -bcxx orbench.idl` puts stubs and POA skeletons in one header.
#pragma once

#include "orbench.hh"
