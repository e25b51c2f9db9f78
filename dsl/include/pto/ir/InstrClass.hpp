#pragma once
// What kind of work an instruction is, decided once when the kernel is traced, so that the cost
// model looks costs up by enum (never by the instruction's name). The chip profile gives each
// class its costs (ChipProfile::vector_ops, ChipProfile::paths, the cube's fractal rate).
#include <array>
#include <cstdint>
#include <unordered_set>

#include "pto/ir/IR.hpp"

namespace pto::ir {

/// The unit and the cost formula an instruction is charged by.
enum class InstrClass : uint8_t {
  Other,   // not timed as work (sync instructions are charged by their own rules)
  Load,    // GM -> Vec or Mat (MTE2): a DMA transfer
  Store,   // Vec -> GM (MTE3) or Acc -> GM (FIX): a DMA transfer
  Vector,  // element-wise tile expression or row reduction (V): per-op head + slope per repeat
  Move,    // between local memories (MTE1 Mat -> L0, FIX Acc -> Vec, MTE3 Vec -> Mat)
  Matmul,  // the cube (M): per fractal block
  Scalar,  // the scalar unit (S): debug aids, set_validshape
};

/// The vector operation classes whose costs the profile lists (pto-isa's 910B3 fits group ops so).
enum class VecOp : uint8_t {
  Binary,         // add, sub, max, min, comparisons, and, or: tile (op) tile
  Mul,            // tile * tile
  Div,            // tile / tile, tile % tile, and their scalar-operand forms
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  ScalarOperand,  // tile (op) scalar for add, sub, mul, max, min: adds, muls, maxs, mins
  Unary,          // abs, neg, relu
  Cast,
  Select,
  Reduce,         // the reduction step of a row reduction (vcadd/vcmax)
};
inline constexpr int kVecOpCount = 12;
const char* vec_op_name(VecOp op);

/// How many operations of each class one vector instruction performs per element.
using VecOpCounts = std::array<uint8_t, kVecOpCount>;
/// The classes of the operations in a tile expression (each Binary, Unary, Cast, Select node).
/// With `computed` (a vector function's instructions in order), nodes already in it are not
/// counted again — their register is reused — and the counted ones are added to it.
VecOpCounts count_vec_ops(const Expr& e, std::unordered_set<const ExprNode*>* computed = nullptr);
/// The element-wise operations per element (every class but Reduce; 1 for a plain copy): FLOPs.
int elementwise_ops(const VecOpCounts& counts);

}  // namespace pto::ir
