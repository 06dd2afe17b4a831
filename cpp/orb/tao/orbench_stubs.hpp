// TAO: `tao_idl orbench.idl` writes client stubs to orbenchC.h and POA skeletons to orbenchS.h.
#pragma once

#include "orbenchC.h"
#include "orbenchS.h"
