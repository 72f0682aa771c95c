//===--- TranslationUnitAnalyses.cpp - analyses the checks share ----------===//

#include "analysis/TranslationUnitAnalyses.h"
#include <map>
#include <mutex>

namespace clang::tidy::xfer {
namespace {

// Checks are created per translation unit and destroyed with it, before
// its ASTContext: an entry is removed when its last check lets go, so a
// later unit's context at the same address never finds it.
using RegistryKey = std::pair<const ASTContext *, const ProjectFacts *>;
struct RegistryEntry {
  std::weak_ptr<TranslationUnitAnalyses> Shared;
  const TranslationUnitAnalyses *Object = nullptr;
};
std::mutex RegistryMutex;
std::map<RegistryKey, RegistryEntry> &registry() {
  static std::map<RegistryKey, RegistryEntry> Registry;
  return Registry;
}

} // namespace

std::shared_ptr<TranslationUnitAnalyses>
TranslationUnitAnalyses::of(ASTContext &Ctx,
                            std::shared_ptr<const ProjectFacts> Index) {
  std::lock_guard<std::mutex> Lock(RegistryMutex);
  RegistryEntry &Entry = registry()[RegistryKey{&Ctx, Index.get()}];
  if (std::shared_ptr<TranslationUnitAnalyses> Existing = Entry.Shared.lock())
    return Existing;
  auto Analyses =
      std::make_shared<TranslationUnitAnalyses>(Ctx, std::move(Index));
  Entry = {Analyses, Analyses.get()};
  return Analyses;
}

TranslationUnitAnalyses::TranslationUnitAnalyses(
    ASTContext &Ctx, std::shared_ptr<const ProjectFacts> Index)
    : Ctx(Ctx), Index(std::move(Index)), Devices(Ctx, this->Index.get()) {}

TranslationUnitAnalyses::~TranslationUnitAnalyses() {
  std::lock_guard<std::mutex> Lock(RegistryMutex);
  auto It = registry().find(RegistryKey{&Ctx, Index.get()});
  if (It != registry().end() && It->second.Object == this)
    registry().erase(It);
}

CallSummaries &TranslationUnitAnalyses::summaries(bool ReportUnknownPlacement) {
  std::unique_ptr<CallSummaries> &Slot = Summaries[ReportUnknownPlacement];
  if (!Slot)
    Slot = std::make_unique<CallSummaries>(Devices, ReportUnknownPlacement);
  return *Slot;
}

const CudaEvidence &TranslationUnitAnalyses::cudaEvidence() {
  if (!Evidence)
    Evidence = findCudaEvidence(Ctx);
  return *Evidence;
}

LoopRole TranslationUnitAnalyses::roleOf(const Stmt *Loop) {
  auto [It, Inserted] = LoopRoles.try_emplace(Loop, LoopRole::Steady);
  if (Inserted)
    It->second = classifyLoop(Loop, Ctx, Index.get());
  return It->second;
}

bool TranslationUnitAnalyses::inSteadyLoop(
    const ExecutionFrequency &Frequency) {
  return llvm::any_of(Frequency.Loops, [&](const EnclosingLoop &Loop) {
    return roleOf(Loop.Loop) == LoopRole::Steady;
  });
}

} // namespace clang::tidy::xfer
