#pragma once
// The PTO kernel language, namespace `pto::lang` (alias it: `namespace pl = pto::lang;`).
#include "pto/lang/Control.hpp"
#include "pto/lang/Cube.hpp"
#include "pto/lang/Debug.hpp"
#include "pto/lang/Ops.hpp"
#include "pto/lang/Rearrange.hpp"
#include "pto/lang/Scalar.hpp"
#include "pto/lang/Sync.hpp"
#include "pto/lang/Tensor.hpp"
#include "pto/lang/Tile.hpp"
#include "pto/lang/TileExpr.hpp"
#include "pto/lang/TilingKey.hpp"
#include "pto/lang/PyptoForms.hpp"
