//===--- ProjectFacts.h - facts about a program across translation units --===//
//
// A program decides devices in main.cpp and reads them back in train.cpp.
// xfer-tidy first collects, per translation unit, where the arguments of
// every call into user code live and whether the unit uses a CUDA device
// (TranslationUnitFacts); merged over the program they give each
// parameter the join of its callers' arguments in every file
// (ProjectFacts), which DeviceInference consults where its own
// translation unit holds no caller.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_ANALYSIS_PROJECTFACTS_H
#define XFER_TIDY_CHECKS_ANALYSIS_PROJECTFACTS_H

#include "analysis/DeviceInference.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <memory>

namespace clang::tidy::xfer {

/// Where a function that runs on every step is driven from.
struct StepOrigin {
  /// "trainer.cpp:87": the loop whose iterations call it.
  std::string Loop;
};

/// A key for \p Function that is the same in every translation unit:
/// its qualified name and canonical parameter types (`Frame::operator=(
/// Frame &&)`).
std::string functionKey(const FunctionDecl *Function);

class ProjectFacts {
public:
  /// The facts of one translation unit, as JSON:
  /// {"usesCuda": bool, "parameters": {"<key>": ["cuda", null, ...]},
  ///  "stepCalls": [["<callee key>", "<file>:<line> of the loop"], ...],
  ///  "stepCallsIfWork": {"<callee key>": {"loop": "<file>:<line>",
  ///                       "unseenCallees": ["<key>", ...]}},
  ///  "stepArguments": {"<callee key>": [[1, 2], null, ...]},
  ///  "functions": {"<key>": {"queuesWork": bool,
  ///                          "unseenCallees": ["<key>", ...]}},
  ///  "calls": [["<caller key>", "<callee key>"], ...],
  ///  "trainingLoops": ["<file>:<line>", ...],
  ///  "evaluationCalls": ["<callee key>", ...],
  ///  "returns": {"<key>": "cpu"}, "fields": {"<Class::field>": "cuda"},
  ///  "reaches": [["<caller key>", "<callee key>"], ...],
  ///  "entryPoints": ["<key>", ...],
  ///  "loopFunctions": {"<file>:<line>": "<key>"},
  ///  "followedByTransfer": {"<key>": bool}}:
  /// the calls made on
  /// every iteration of a hot loop (or of a loop that is hot if a function
  /// defined in another file queues device work), whether each function
  /// defined here queues device work or which functions defined elsewhere
  /// decide it, the unconditional calls between functions outside
  /// loops, through which a step reaches further, and where what the
  /// functions defined here return and what the fields they store into hold
  /// live, where that is known whatever their callers pass; and every call
  /// between the program's functions, so that loops in functions main never
  /// reaches (a test path left in the code) drive no step.
  static llvm::json::Value collect(ASTContext &Ctx, DeviceInference &Devices);

  /// Merges the facts of several translation units (the join of known
  /// placements per parameter).
  void merge(const llvm::json::Value &TranslationUnit);

  /// The facts of the translation unit of \p Ctx alone: what a project
  /// index of a program of one file holds.
  static std::shared_ptr<const ProjectFacts>
  ofTranslationUnit(ASTContext &Ctx, DeviceInference &Devices);
  llvm::json::Value toJSON() const;

  /// Reads an index written by toJSON(); each path is read once per
  /// process and shared.
  static llvm::Expected<std::shared_ptr<const ProjectFacts>>
  load(llvm::StringRef Path);

  /// The index a check's ProjectIndex option names: null when \p Path is
  /// empty or the file cannot be read (then \p OnError hears why).
  static std::shared_ptr<const ProjectFacts>
  loadOption(llvm::StringRef Path,
             llvm::function_ref<void(llvm::Error)> OnError);
  /// The same for checks that leave reporting an unreadable index to the
  /// loop checks.
  static std::shared_ptr<const ProjectFacts> loadOption(llvm::StringRef Path);

  /// The join of what callers anywhere in the program pass to parameter
  /// \p Index of \p Function, when any caller passes something known.
  std::optional<Placement> parameter(const FunctionDecl *Function,
                                     unsigned Index) const;
  bool usesCuda() const { return UsesCuda; }

  /// Where what \p Function returns lives, as the file defining it shows.
  std::optional<Placement> returnPlacement(const FunctionDecl *Function) const;
  /// Where what the program stores into \p Field lives (the join over the
  /// files that store into it).
  std::optional<Placement> fieldPlacement(const FieldDecl *Field) const;

  /// False if \p S is in a function that main never reaches, in a program
  /// that defines main (a test path left in the code never runs).
  bool mayRun(const Stmt *S, ASTContext &Ctx) const;

  /// The loop that calls \p Function on each of its iterations, directly
  /// or through unconditional calls, in any file of the program.
  const StepOrigin *stepOrigin(const FunctionDecl *Function) const;
  /// True if the program calls \p Function from evaluation passes (a
  /// validation loop) and from no loop that runs on every step.
  bool calledOnlyInEvaluation(const FunctionDecl *Function) const;
  /// True if the loop stepOrigin() names takes a training step.
  bool drivenByTraining(const FunctionDecl *Function) const;
  /// True if the loop stepOrigin() names reads new input from outside the
  /// program on each iteration (readsNewInput()) and takes no training
  /// step.
  bool drivenByNewInput(const FunctionDecl *Function) const;

  /// The constants that the calls in step loops pass for parameter
  /// \p Index of \p Function (`exchange(1, ...)`, `exchange(2, ...)`), when
  /// every such call passes a constant and no other step function calls it:
  /// what a branch on the parameter sees on every step.
  std::optional<llvm::ArrayRef<int64_t>>
  stepArgumentValues(const FunctionDecl *Function, unsigned Index) const;

  /// True if \p Function (a module's forward), in the file that defines
  /// it, moves its parameter \p Index to a device itself.
  bool movesParameter(const FunctionDecl *Function, unsigned Index) const;

  /// Whether every call of \p Function in the program is followed at once
  /// by a blocking copy (isFollowedByBlockingTransfer); none when no file
  /// calls it.
  std::optional<bool>
  callsFollowedByTransfer(const FunctionDecl *Function) const;

  /// Whether running \p Function queues device work (a kernel launch,
  /// LibTorch operation or CUDA library routine), directly or through what
  /// it calls, as the file that defines it shows; none when no file of the
  /// program defines it.
  std::optional<bool> queuesDeviceWork(const FunctionDecl *Function) const;

private:
  /// What one function's definition shows: device work of its own, or the
  /// functions defined elsewhere that it calls and that decide.
  struct FunctionWork {
    bool QueuesWork = false;
    llvm::SmallVector<std::string, 2> UnseenCallees;
  };
  /// What the step loops' calls pass for one parameter: constants, or
  /// something that varies.
  struct ArgumentValues {
    llvm::SmallVector<int64_t, 2> Constants;
    bool Varies = false;
  };
  void recordStepArguments(llvm::StringRef CalleeKey, const CallExpr *Call,
                           const FunctionDecl *Callee, const ASTContext &Ctx);
  void mergeStepArguments(llvm::StringRef CalleeKey,
                          llvm::ArrayRef<ArgumentValues> Values);
  /// A loop that is a step loop if one of the functions it calls, defined
  /// elsewhere, queues device work (else it sets up or tears down).
  struct ConditionalStep {
    std::string Loop;
    llvm::SmallVector<std::string, 2> UnseenCallees;
  };

  /// Derives what an index's merged facts imply, once, when it is loaded:
  /// which functions queue device work, through functions defined in other
  /// files too; and from the functions called in step loops, what they call
  /// unconditionally.
  void propagateWork();
  void propagateSteps();
  /// True if the function \p Key queues device work, or no file defines it
  /// (then it may).
  bool mayQueueWork(llvm::StringRef Key) const;

  llvm::StringMap<llvm::SmallVector<Placement, 4>> Parameters;
  llvm::StringMap<Placement> Returns;
  llvm::StringMap<Placement> Fields;
  llvm::StringMap<ConditionalStep> ConditionalStepCalls;
  llvm::StringMap<llvm::SmallVector<ArgumentValues, 4>> StepArguments;
  llvm::StringMap<FunctionWork> DefinedFunctions;
  std::vector<std::pair<std::string, std::string>> Calls;
  llvm::StringMap<StepOrigin> Steps;
  /// The functions a step function calls outside its loops (propagateSteps).
  llvm::StringSet<> CalledFromSteps;
  /// The step loops ("file:line") that take a training step.
  llvm::StringSet<> TrainingLoops;
  /// The step loops that read new input on each iteration.
  llvm::StringSet<> InputLoops;
  /// The functions some evaluation pass calls.
  llvm::StringSet<> EvaluationCalls;
  /// "<function key>#<index>" of the parameters movesParameterItself()
  /// holds for.
  llvm::StringSet<> MovedParameters;
  bool UsesCuda = false;
  /// Every call between functions of the program, wherever it is (caller
  /// key, callee key): what main can reach.
  std::vector<std::pair<std::string, std::string>> Reaches;
  /// Where the program starts: main, and the functions that library code
  /// or a pointer may call (their address is taken, or a global's
  /// initializer calls them).
  llvm::StringSet<> EntryPoints;
  /// Every (callee key, loop) of a call on each iteration of a hot loop
  /// ("stepCalls"), and the function each such loop is in.
  std::vector<std::pair<std::string, std::string>> StepCallSites;
  llvm::StringMap<std::string> LoopFunctions;
  /// The functions main reaches; empty when no file of the program
  /// defines main (a library: every function may run).
  llvm::StringSet<> Reachable;
  bool HasMain = false;
  /// Per callee key: whether each of its calls is followed at once by a
  /// blocking copy (false as soon as one is not).
  llvm::StringMap<bool> FollowedByTransfer;
  /// Fills Reachable (propagateSteps).
  void findReachable();
  /// True if the loop "file:line" runs: in a function main reaches, or the
  /// program has no main.
  bool loopMayRun(llvm::StringRef Loop) const;
};

/// True if \p Function (a module's forward) moves parameter \p Index to a
/// device itself (`x = x.to(device)`, `x.cuda()`) in its definition, if this
/// translation unit has it: a caller's tensor may be anywhere.
bool movesParameterItself(const FunctionDecl *Function, unsigned Index,
                          DeviceInference &Devices);

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_ANALYSIS_PROJECTFACTS_H
