// Placeholder
#include "passes/Passes.h"
namespace vmapc {
#define GEN_PASS_DEF_ARRVMAP
#include "passes/Passes.h.inc"
} // namespace vmapc
namespace {
struct ArrVmapPass : vmapc::impl::ArrVmapBase<ArrVmapPass> {
  using ArrVmapBase::ArrVmapBase;
  void runOnOperation() override {}
};
} // namespace
