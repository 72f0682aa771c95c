//===--- CheckConfiguration.cpp - which checks run, with which options ----===//

#include "CheckConfiguration.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/GlobList.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang::tidy;

namespace xfer {
namespace {

/// The globs of \p Checks, split as clang-tidy's GlobList splits them.
llvm::SmallVector<llvm::StringRef, 8> splitGlobs(llvm::StringRef Checks) {
  llvm::SmallVector<llvm::StringRef, 8> Globs;
  while (!Checks.empty()) {
    size_t End = Checks.find_first_of(",\n");
    llvm::StringRef Glob = Checks.take_front(End).trim(" \t\r\n");
    Checks = End == llvm::StringRef::npos ? "" : Checks.drop_front(End + 1);
    if (!Glob.empty())
      Globs.push_back(Glob);
  }
  return Globs;
}

llvm::StringRef globPattern(llvm::StringRef Glob) {
  return Glob.drop_while([](char C) { return C == '-' || C == ' '; });
}

class ExplicitXferChecksProvider : public ClangTidyOptionsProvider {
public:
  explicit ExplicitXferChecksProvider(
      std::unique_ptr<ClangTidyOptionsProvider> Inner)
      : Inner(std::move(Inner)) {}

  const ClangTidyGlobalOptions &getGlobalOptions() override {
    return Inner->getGlobalOptions();
  }

  std::vector<OptionsSource> getRawOptions(llvm::StringRef File) override {
    std::vector<OptionsSource> Sources = Inner->getRawOptions(File);
    for (auto &[Options, Source] : Sources) {
      if (!Options.Checks || Source == OptionsSourceTypeDefaultBinary ||
          Source == OptionsSourceTypeCheckCommandLineOption)
        continue;
      std::string Kept = xferCheckGlobs(*Options.Checks);
      if (Kept.empty())
        Options.Checks.reset();
      else
        Options.Checks = std::move(Kept);
    }
    return Sources;
  }

private:
  std::unique_ptr<ClangTidyOptionsProvider> Inner;
};

/// The known key closest to \p Key, if it is close enough to be a typo.
std::optional<llvm::StringRef>
closestKey(llvm::StringRef Key, llvm::ArrayRef<llvm::StringRef> Candidates) {
  std::optional<llvm::StringRef> Best;
  unsigned BestDistance = std::max<unsigned>(2, Key.size() / 4) + 1;
  for (llvm::StringRef Candidate : Candidates) {
    unsigned Distance = Key.edit_distance_insensitive(Candidate);
    if (Distance < BestDistance) {
      BestDistance = Distance;
      Best = Candidate;
    }
  }
  return Best;
}

} // namespace

std::string xferCheckGlobs(llvm::StringRef Checks) {
  std::string Kept;
  for (llvm::StringRef Glob : splitGlobs(Checks))
    if (globPattern(Glob).starts_with("xfer")) {
      if (!Kept.empty())
        Kept += ',';
      Kept += Glob;
    }
  return Kept;
}

std::unique_ptr<ClangTidyOptionsProvider>
withExplicitXferChecks(std::unique_ptr<ClangTidyOptionsProvider> Inner) {
  return std::make_unique<ExplicitXferChecksProvider>(std::move(Inner));
}

std::string describeOptionsSource(llvm::StringRef Source) {
  if (Source == ClangTidyOptionsProvider::OptionsSourceTypeCheckCommandLineOption)
    return "--checks";
  if (Source ==
      ClangTidyOptionsProvider::OptionsSourceTypeConfigCommandLineOption)
    return "--config";
  if (Source == ClangTidyOptionsProvider::OptionsSourceTypeDefaultBinary)
    return "the defaults";
  return Source.str();
}

ConfigurationReport verifyConfiguration(ClangTidyOptionsProvider &Provider,
                                        llvm::ArrayRef<std::string> Files) {
  ConfigurationReport Report;
  NamesAndOptions Known = getAllChecksAndOptions();
  llvm::StringSet<> Said;
  auto Warn = [&](std::string Message) {
    if (Said.insert(Message).second)
      Report.Warnings.push_back(std::move(Message));
  };
  auto Fail = [&](std::string Message) {
    if (Said.insert(Message).second)
      Report.Errors.push_back(std::move(Message));
  };

  llvm::StringSet<> Instantiated;
  for (const std::string &File : Files) {
    for (const auto &[Options, Source] : Provider.getRawOptions(File)) {
      if (Source == ClangTidyOptionsProvider::OptionsSourceTypeDefaultBinary)
        continue;
      std::string Where = describeOptionsSource(Source);
      if (Options.Checks)
        for (llvm::StringRef Glob : splitGlobs(*Options.Checks)) {
          GlobList Pattern(globPattern(Glob));
          if (llvm::none_of(Known.Names, [&](const auto &Name) {
                return Pattern.contains(Name.getKey());
              })) {
            // On the command line it is a typo; a configuration file may be
            // shared with clang-tidy and name checks xfer-tidy lacks.
            std::string Message =
                llvm::formatv("'{0}' in {1} matches no check", Glob, Where);
            if (Source == ClangTidyOptionsProvider::
                              OptionsSourceTypeCheckCommandLineOption)
              Fail(std::move(Message));
            else
              Warn(std::move(Message));
          }
        }
      for (const auto &[Key, Value] : Options.CheckOptions) {
        llvm::StringRef Check = llvm::StringRef(Key).split('.').first;
        if (Check.size() == Key.size() || !Check.starts_with("xfer") ||
            Known.Options.contains(Key))
          continue;
        if (!Known.Names.contains(Check)) {
          Warn(llvm::formatv("unknown option '{0}' in {1}: no check is "
                             "named '{2}'",
                             Key, Where, Check));
          continue;
        }
        llvm::SmallVector<llvm::StringRef, 8> Siblings;
        for (const auto &Option : Known.Options)
          if (Option.getKey().starts_with((Check + ".").str()))
            Siblings.push_back(Option.getKey());
        llvm::sort(Siblings);
        std::string Message =
            llvm::formatv("unknown option '{0}' in {1}", Key, Where);
        if (std::optional<llvm::StringRef> Near = closestKey(Key, Siblings))
          Message += llvm::formatv("; did you mean '{0}'?", *Near).str();
        else {
          Message += "; " + Check.str() + " reads ";
          for (llvm::StringRef Option : Siblings)
            Message += (Option == Siblings.front() ? "" : ", ") +
                       Option.drop_front(Check.size() + 1).str();
        }
        Warn(std::move(Message));
      }
    }

    // Construct the checks as the run will: they report option values they
    // cannot use as configuration diagnostics.
    ClangTidyOptions Merged = Provider.getOptions(File);
    if (!Instantiated.insert(configurationAsText(Merged)).second)
      continue;
    ClangTidyContext Context(std::make_unique<DefaultOptionsProvider>(
        Provider.getGlobalOptions(), Merged));
    ClangTidyDiagnosticConsumer Consumer(Context);
    clang::DiagnosticsEngine Engine(new clang::DiagnosticIDs(),
                                    new clang::DiagnosticOptions(), &Consumer,
                                    /*ShouldOwnClient=*/false);
    Context.setDiagnosticsEngine(&Engine);
    ClangTidyASTConsumerFactory Factory(Context);
    if (!Factory.getCheckNames().empty())
      Report.AnyCheckEnabled = true;
    Factory.getCheckOptions();
    for (const ClangTidyError &Error : Consumer.take())
      Fail(Error.Message.Message);
  }
  return Report;
}

} // namespace xfer
