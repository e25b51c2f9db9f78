// The layouts pass (docs/semantics.md, "Layouts"): every tile group gets its layout (the chip's
// default for its memory unless declared), checked against what the memory takes; every load,
// store and local move gets the layout conversion its data path performs (ir::Conversion), or a
// UserError when the path cannot perform it (pto-isa's TLOAD/TSTORE/TEXTRACT rules).
#include <fmt/format.h>

#include "pto/backend/Passes.hpp"
#include "pto/ir/Visitor.hpp"

namespace pto::backend {
namespace {

using ir::Conversion;
using ir::Layout;
using ir::MemSpace;

bool is_cube_buffer(MemSpace s) { return s == MemSpace::Left || s == MemSpace::Right || s == MemSpace::Acc; }

/// One row or one column: ND and DN hold the same bytes.
bool is_line(const ir::TileGroup& g) { return g.rows == 1 || g.cols == 1; }

std::string layout_list(uint8_t bits) {
  std::string out;
  for (int l = 1; l < ir::kLayoutCount; ++l) {
    if (!((bits >> l) & 1)) continue;
    out += fmt::format("{}{}", out.empty() ? "" : ", ", ir::layout_name(static_cast<Layout>(l)));
  }
  return out;
}

void resolve_group(const ir::Kernel& k, ir::TileGroup& g, const ChipProfile& chip) {
  const LayoutRules& rules = chip.layouts;
  const Layout def = rules.default_of(g.space);
  const ErrorSite site{.kernel = k.name, .specialization = k.specialization, .loc = g.loc};
  const char* mem = ir::mem_space_name(g.space);
  if (g.layout == Layout::Default) {
    g.layout = def;
    return;
  }
  const bool rejected = is_cube_buffer(g.space) && ((rules.rejected_in_cube >> static_cast<int>(g.layout)) & 1);
  // PyPTO Pro's two messages (block_ops.py _apply_default_layout).
  PTO_USER_CHECK(!rejected, site) << mem << " tiles do not support " << ir::layout_name(g.layout) << " layout on '" << chip.name
                                  << "'; use the default " << ir::layout_name(def) << " layout instead (tile group " << g.name << ")";
  PTO_USER_CHECK(rules.allows(g.space, g.layout), site)
      << mem << " tiles require layout in {" << layout_list(rules.allowed[static_cast<size_t>(g.space)]) << "}, got "
      << ir::layout_name(g.layout) << ". Default for '" << chip.name << "' is " << ir::layout_name(def) << " (tile group " << g.name << ")";
}

/// The layout of a GM window: DN when its rows are contiguous and its columns are not (a
/// transposed view), else ND (row-major, or a view strided both ways, which moves element by element).
Layout gm_layout(const ir::GMRegion& r) {
  const auto row = ir::int_constant(ir::region_stride(r, 0)), col = ir::int_constant(ir::region_stride(r, 1));
  return row && *row == 1 && !(col && *col == 1) ? Layout::DN : Layout::ND;
}

/// Whether a GM window is ND and DN alike: one row or one column of elements, or a view whose
/// rows and columns are both contiguous (one of its dimensions is one element of the tensor: the
/// [K, N] column-major view of an [N, 1] B). Either tile layout then holds its elements in order.
bool gm_either_layout(const ir::GMRegion& r) {
  const auto row = ir::int_constant(ir::region_stride(r, 0)), col = ir::int_constant(ir::region_stride(r, 1));
  const auto rows = ir::int_constant(r.extent[0]), cols = ir::int_constant(r.extent[1]);
  return (row && *row == 1 && col && *col == 1) || (rows && *rows == 1) || (cols && *cols == 1);
}

class LayoutResolver : public ir::Visitor {
 public:
  explicit LayoutResolver(ir::Kernel& k) : k_(k) {}

 protected:
  void visit_node(const ir::Load* op) override { set(*op, gm_transfer(op->dst, op->src, *op, true)); }
  void visit_node(const ir::Store* op) override { set(*op, gm_transfer(op->src, op->dst, *op, false)); }
  void visit_node(const ir::Move* op) override { set(*op, local_move(op->dst, op->src, op->attrs.transpose, *op)); }

 private:
  void set(const ir::Instr& i, Conversion c) { k_.instrs[static_cast<size_t>(i.id)].convert = c; }

  const ir::TileGroup& group(const ir::TileRef& t) const { return k_.groups[static_cast<size_t>(t.group)]; }

  [[noreturn]] void fail(const ir::Instr& i, const std::string& what) const { throw UserError(what, instr_site(k_, i)); }

  /// GM <-> Vec/Mat on MTE2/MTE3, Acc -> GM on FIX.
  Conversion gm_transfer(const ir::TileRef& t, const ir::GMRegion& r, const ir::Instr& i, bool load) {
    const auto& g = group(t);
    const Layout gm = gm_layout(r), tile = g.layout;
    const char* verb = load ? "load" : "store";
    auto name = [&](Layout l) { return ir::layout_name(l); };
    if (g.space == MemSpace::Acc) {  // TSTORE from Acc: NZ2ND (NZ2DN is not supported)
      if (gm == Layout::DN) fail(i, fmt::format("FIX stores an NZ accumulator into row-major (ND) GM; this window of tensor {} is "
                                                "column-major (DN), which TSTORE does not support (NZ2DN); store into a row-major tensor",
                                                k_.tensors[static_cast<size_t>(r.tensor)].name));
      return Conversion::Nz2Nd;
    }
    const bool either = gm_either_layout(r);
    if (!ir::is_fractal(tile)) {  // ND or DN tiles: the layouts must match (a line is both)
      if (tile == Layout::DN && gm != Layout::DN && !either && !is_line(g)) {
        fail(i, fmt::format("{} between a {}x{} DN tile ({}) and a row-major window of tensor {}: MTE moves a DN tile to or from a "
                            "column-major (DN) view only; use an ND tile, or pass a transposed view (permute)",
                            verb, g.rows, g.cols, g.name, k_.tensors[static_cast<size_t>(r.tensor)].name));
      }
      return Conversion::None;
    }
    // Fractal tiles: only Mat takes them here (the memory's allowed list), loaded with ND2NZ or DN2ZN.
    if (!load) fail(i, fmt::format("store from {} tile {} in {}: MTE3 writes ND or DN tiles to GM", name(tile), g.name, ir::mem_space_name(g.space)));
    const Layout want = gm == Layout::DN ? Layout::ZN : Layout::NZ;
    if (tile != want && !either) {
      fail(i, fmt::format("load of a {} window of tensor {} into {} tile {}: TLOAD converts ND -> NZ and DN -> ZN only; declare the "
                          "tile {}{}",
                          name(gm), k_.tensors[static_cast<size_t>(r.tensor)].name, name(tile), g.name, name(want),
                          gm == Layout::ND ? " (or pass a transposed view, which loads into ZN)" : ""));
    }
    return Conversion::Nd2Nz;
  }

  /// Mat -> Left/Right on MTE1, Acc -> Vec on FIX, Vec -> Mat on MTE3 (a5).
  Conversion local_move(const ir::TileRef& dst_ref, const ir::TileRef& src_ref, bool transpose, const ir::Instr& i) {
    const auto& dst = group(dst_ref);
    const auto& src = group(src_ref);
    auto name = [&](Layout l) { return ir::layout_name(l); };
    if (src.space == MemSpace::Mat) {  // TEXTRACT / TMOV into L0: blocks to blocks
      if (!ir::is_fractal(src.layout)) {
        fail(i, fmt::format("move of {} tile {} into {}: MTE1 loads L0 from fractal tiles (NZ or ZN); declare {} NZ (the Mat default) "
                            "or ZN",
                            name(src.layout), src.name, ir::mem_space_name(dst.space), src.name));
      }
      // A transposed move reads the source as its transpose: a [N, K] NZ tile is a [K, N] ZN one.
      const Layout seen = transpose ? ir::transposed(src.layout) : src.layout;
      return ir::rows_inside(seen) == ir::rows_inside(dst.layout) ? Conversion::None : Conversion::Transpose;
    }
    if (src.space == MemSpace::Acc) {  // Acc -> Vec: NZ2ND on FIX
      if (dst.layout == Layout::DN && !is_line(dst)) {
        fail(i, fmt::format("move of accumulator {} into DN tile {}: FIX converts NZ to ND only; use an ND Vec tile", src.name, dst.name));
      }
      return Conversion::Nz2Nd;
    }
    if (src.space == MemSpace::Vec && dst.space == MemSpace::Mat) {  // UB -> L1: ND -> NZ (DN -> ZN) or as is
      if (!ir::is_fractal(dst.layout)) {
        if (dst.layout != src.layout && !is_line(src)) {
          fail(i, fmt::format("move of {} tile {} into {} tile {}: UB -> L1 keeps an untiled layout as it is", name(src.layout), src.name,
                              name(dst.layout), dst.name));
        }
        return Conversion::None;
      }
      const Layout want = src.layout == Layout::DN && !is_line(src) ? Layout::ZN : Layout::NZ;
      if (dst.layout != want) {
        fail(i, fmt::format("move of {} tile {} into {} tile {}: UB -> L1 converts ND -> NZ and DN -> ZN only", name(src.layout), src.name,
                            name(dst.layout), dst.name));
      }
      return Conversion::Nd2Nz;
    }
    return Conversion::None;
  }

  ir::Kernel& k_;
};

}  // namespace

void resolve_layouts(ir::Kernel& k, const ChipProfile& chip) {
  for (auto& g : k.groups) resolve_group(k, g, chip);
  LayoutResolver resolver(k);
  resolver.visit(k.body);
}

}  // namespace pto::backend
