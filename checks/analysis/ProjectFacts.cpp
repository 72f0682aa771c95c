//===--- ProjectFacts.cpp - facts about a program across translation units ===//

#include "analysis/ProjectFacts.h"
#include "analysis/AstUtils.h"
#include "analysis/CudaEvidence.h"
#include "analysis/LoopContext.h"
#include "analysis/StepFunctions.h"
#include "llvm/Support/Path.h"
#include <deque>
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include <mutex>

namespace clang::tidy::xfer {
namespace {

std::optional<Placement> placementFromName(llvm::StringRef Name) {
  for (Placement P : {Placement::Unknown, Placement::Cpu, Placement::PinnedCpu,
                      Placement::Cuda, Placement::MaybeCuda, Placement::Managed})
    if (placementName(P) == Name)
      return P;
  return std::nullopt;
}

/// Joins \p Next into \p Into where unknown adds nothing.
void joinKnown(Placement &Into, Placement Next) {
  if (Next == Placement::Unknown)
    return;
  Into = Into == Placement::Unknown ? Next : joinPlacements(Into, Next);
}

} // namespace

std::string functionKey(const FunctionDecl *Function) {
  return Function->getQualifiedNameAsString() + "/" +
         std::to_string(Function->getNumParams());
}

llvm::json::Value ProjectFacts::collect(ASTContext &Ctx,
                                        DeviceInference &Devices) {
  // Every call in user code to a function declared in user code.
  struct Collector : RecursiveASTVisitor<Collector> {
    const SourceManager &SM;
    llvm::SmallVector<const CallExpr *, 64> Calls;
    explicit Collector(const SourceManager &SM) : SM(SM) {}
    bool VisitCallExpr(CallExpr *Call) {
      if (const FunctionDecl *Callee = stepCallee(Call);
          Callee &&
          !SM.isInSystemHeader(SM.getExpansionLoc(Callee->getLocation())))
        Calls.push_back(Call);
      return true;
    }
  } Calls(Ctx.getSourceManager());
  const SourceManager &SM = Ctx.getSourceManager();
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (!SM.isInSystemHeader(D->getLocation()))
      Calls.TraverseDecl(D);

  ProjectFacts Facts;
  llvm::DenseMap<const Stmt *, LoopRole> Roles;
  auto RoleOf = [&](const Stmt *Loop) {
    auto [It, Inserted] = Roles.try_emplace(Loop, LoopRole::Steady);
    if (Inserted)
      It->second = classifyLoop(Loop, Ctx);
    return It->second;
  };
  for (const CallExpr *Call : Calls.Calls) {
    const FunctionDecl *Callee = stepCallee(Call);
    // Which calls run on every step: on every iteration of a loop that
    // queues device work (not an evaluation pass), or unconditionally from
    // a function that does.
    ExecutionFrequency Frequency = analyzeFrequency(Call, Ctx);
    if (Frequency.Guard == GuardKind::None) {
      if (!Frequency.inLoop()) {
        if (const FunctionDecl *Caller = enclosingFunction(Call, Ctx))
          Facts.Calls.emplace_back(functionKey(Caller), functionKey(Callee));
      } else if (llvm::any_of(Frequency.Loops,
                              [&](const EnclosingLoop &L) {
                                return RoleOf(L.Loop) == LoopRole::Steady;
                              }) &&
                 llvm::none_of(Frequency.Loops, [&](const EnclosingLoop &L) {
                   return RoleOf(L.Loop) == LoopRole::Evaluation;
                 })) {
        SourceLocation Loc =
            SM.getExpansionLoc(Frequency.Loops.front().Loop->getBeginLoc());
        Facts.StepCalls.try_emplace(
            functionKey(Callee),
            (llvm::sys::path::filename(SM.getFilename(Loc)) + ":" +
             llvm::Twine(SM.getExpansionLineNumber(Loc)))
                .str());
      }
    }
    if (!Callee->getNumParams())
      continue;
    const unsigned First =
        isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
    llvm::SmallVector<Placement, 4> &Slots =
        Facts.Parameters[functionKey(Callee)];
    Slots.resize(std::max<size_t>(Slots.size(), Callee->getNumParams()),
                 Placement::Unknown);
    for (unsigned I = 0; I < Callee->getNumParams(); ++I)
      if (I + First < Call->getNumArgs())
        joinKnown(Slots[I], Devices.argumentPlacement(
                                Call->getArg(I + First),
                                Callee->getParamDecl(I)->getType()));
  }
  Facts.UsesCuda = findCudaEvidence(Ctx).Found;
  return Facts.toJSON();
}

void ProjectFacts::propagateSteps() {
  Steps.clear();
  llvm::StringMap<llvm::SmallVector<llvm::StringRef, 4>> Callees;
  for (const auto &[Caller, Callee] : Calls)
    Callees[Caller].push_back(Callee);
  // Breadth first from the functions loops call: each function keeps the
  // loop it is reached from first.
  std::deque<std::string> Work;
  for (const auto &Entry : StepCalls) {
    Steps[Entry.first()] = StepOrigin{Entry.second};
    Work.push_back(Entry.first().str());
  }
  while (!Work.empty()) {
    std::string Key = std::move(Work.front());
    Work.pop_front();
    auto It = Callees.find(Key);
    if (It == Callees.end())
      continue;
    const std::string Loop = Steps[Key].Loop;
    for (llvm::StringRef Callee : It->second)
      if (Steps.try_emplace(Callee, StepOrigin{Loop}).second)
        Work.push_back(Callee.str());
  }
}

const StepOrigin *ProjectFacts::stepOrigin(const FunctionDecl *Function) const {
  auto It = Steps.find(functionKey(Function));
  return It == Steps.end() ? nullptr : &It->second;
}

void ProjectFacts::merge(const llvm::json::Value &TranslationUnit) {
  const llvm::json::Object *Object = TranslationUnit.getAsObject();
  if (!Object)
    return;
  if (std::optional<bool> Cuda = Object->getBoolean("usesCuda"))
    UsesCuda |= *Cuda;
  if (const llvm::json::Object *Roots = Object->getObject("stepCalls"))
    for (const auto &[Key, Value] : *Roots)
      if (std::optional<llvm::StringRef> Loop = Value.getAsString())
        StepCalls.try_emplace(Key.str(), Loop->str());
  if (const llvm::json::Array *Edges = Object->getArray("calls"))
    for (const llvm::json::Value &Edge : *Edges)
      if (const llvm::json::Array *Pair = Edge.getAsArray();
          Pair && Pair->size() == 2 && (*Pair)[0].getAsString() &&
          (*Pair)[1].getAsString())
        Calls.emplace_back((*Pair)[0].getAsString()->str(),
                           (*Pair)[1].getAsString()->str());
  const llvm::json::Object *Functions = Object->getObject("parameters");
  if (!Functions)
    return;
  for (const auto &[Key, Value] : *Functions) {
    const llvm::json::Array *Placements = Value.getAsArray();
    if (!Placements)
      continue;
    llvm::SmallVector<Placement, 4> &Slots = Parameters[Key.str()];
    Slots.resize(std::max(Slots.size(), Placements->size()),
                 Placement::Unknown);
    for (size_t I = 0; I < Placements->size(); ++I)
      if (std::optional<llvm::StringRef> Name = (*Placements)[I].getAsString())
        if (std::optional<Placement> P = placementFromName(*Name))
          joinKnown(Slots[I], *P);
  }
}

llvm::json::Value ProjectFacts::toJSON() const {
  llvm::json::Object Functions;
  for (const auto &Entry : Parameters) {
    if (llvm::all_of(Entry.second,
                     [](Placement P) { return P == Placement::Unknown; }))
      continue;
    llvm::json::Array Placements;
    for (Placement P : Entry.second)
      Placements.push_back(P == Placement::Unknown
                               ? llvm::json::Value(nullptr)
                               : llvm::json::Value(placementName(P)));
    Functions[Entry.first().str()] = std::move(Placements); // owned key
  }
  llvm::json::Object Roots;
  for (const auto &Entry : StepCalls)
    Roots[Entry.first().str()] = Entry.second;
  llvm::json::Array Edges;
  for (const auto &[Caller, Callee] : Calls)
    Edges.push_back(llvm::json::Array{Caller, Callee});
  return llvm::json::Object{{"version", 1},
                            {"usesCuda", UsesCuda},
                            {"parameters", std::move(Functions)},
                            {"stepCalls", std::move(Roots)},
                            {"calls", std::move(Edges)}};
}

llvm::Expected<std::shared_ptr<const ProjectFacts>>
ProjectFacts::load(llvm::StringRef Path) {
  static std::mutex Mutex;
  static llvm::StringMap<std::shared_ptr<const ProjectFacts>> Loaded;
  std::lock_guard<std::mutex> Lock(Mutex);
  if (auto It = Loaded.find(Path); It != Loaded.end())
    return It->second;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return llvm::createStringError(Buffer.getError(),
                                   "%s: %s", Path.str().c_str(),
                                   Buffer.getError().message().c_str());
  llvm::Expected<llvm::json::Value> Json =
      llvm::json::parse((*Buffer)->getBuffer());
  if (!Json)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: %s", Path.str().c_str(),
                                   llvm::toString(Json.takeError()).c_str());
  const llvm::json::Object *Object = Json->getAsObject();
  if (!Object || Object->getInteger("version") != 1)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: not a version 1 project index",
                                   Path.str().c_str());
  auto Facts = std::make_shared<ProjectFacts>();
  Facts->merge(*Json);
  Facts->propagateSteps();
  Loaded[Path] = Facts;
  return Facts;
}

std::shared_ptr<const ProjectFacts>
ProjectFacts::loadOption(llvm::StringRef Path,
                         llvm::function_ref<void(llvm::Error)> OnError) {
  if (Path.empty())
    return nullptr;
  llvm::Expected<std::shared_ptr<const ProjectFacts>> Loaded = load(Path);
  if (Loaded)
    return *Loaded;
  OnError(Loaded.takeError());
  return nullptr;
}

std::optional<Placement> ProjectFacts::parameter(const FunctionDecl *Function,
                                                 unsigned Index) const {
  auto It = Parameters.find(functionKey(Function));
  if (It == Parameters.end() || Index >= It->second.size() ||
      It->second[Index] == Placement::Unknown)
    return std::nullopt;
  return It->second[Index];
}

} // namespace clang::tidy::xfer
