// TAO: `tao_idl orbench.idl` writes client stubs to orbenchC.h and POA skeletons to orbenchS.h.
// Not built yet: see cpp/README.md, "Adding TAO".
#pragma once

#include "orbenchC.h"
#include "orbenchS.h"
