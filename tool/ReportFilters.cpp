//===--- ReportFilters.cpp - which findings a run reports -----------------===//

#include "ReportFilters.h"
#include "OutputFormats.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace xfer {

llvm::Expected<LineFilter> parseLineFilter(llvm::StringRef Json) {
  clang::tidy::ClangTidyGlobalOptions Global;
  if (std::error_code EC = clang::tidy::parseLineFilter(Json, Global))
    return llvm::createStringError(EC, "%s", EC.message().c_str());
  return std::move(Global.LineFilter);
}

LineFilter lineFilterFromDiff(llvm::StringRef Diff, llvm::StringRef TopLevel) {
  LineFilter Filter;
  clang::tidy::FileFilter *Current = nullptr;
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Diff.split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    if (Line.consume_front("+++ ")) {
      Current = nullptr;
      Line = Line.rtrim("\t\r");
      if (Line.size() >= 2 && Line.front() == '"' && Line.back() == '"')
        Line = Line.drop_front().drop_back();
      if (!Line.consume_front("b/"))
        continue; // /dev/null: a deleted file
      llvm::SmallString<256> Path(TopLevel);
      llvm::sys::path::append(Path, Line);
      Filter.push_back({Path.str().str(), {}});
      Current = &Filter.back();
      continue;
    }
    // @@ -a[,b] +c[,d] @@
    if (!Current || !Line.consume_front("@@ -"))
      continue;
    size_t Plus = Line.find(" +");
    if (Plus == llvm::StringRef::npos)
      continue;
    llvm::StringRef Added = Line.drop_front(Plus + 2);
    Added = Added.take_until([](char C) { return C == ' '; });
    auto [StartText, CountText] = Added.split(',');
    unsigned Start = 0, Count = 1;
    if (StartText.getAsInteger(10, Start) ||
        (!CountText.empty() && CountText.getAsInteger(10, Count)))
      continue;
    if (Count > 0)
      Current->LineRanges.push_back({Start, Start + Count - 1});
  }
  llvm::erase_if(Filter, [](const clang::tidy::FileFilter &F) {
    return F.LineRanges.empty();
  });
  return Filter;
}

bool passesLineFilter(const Finding &F, const LineFilter &Filter) {
  if (Filter.empty() || F.isCompilerDiagnostic())
    return true;
  std::string Absolute = absolutePath(F.Where.File, F.BuildDirectory);
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(Absolute, Real))
    Real = Absolute;
  for (const clang::tidy::FileFilter &Entry : Filter) {
    if (!llvm::StringRef(F.Where.File).ends_with(Entry.Name) &&
        !llvm::StringRef(Absolute).ends_with(Entry.Name) &&
        !Real.str().ends_with(Entry.Name))
      continue;
    if (Entry.LineRanges.empty())
      return true;
    for (const auto &[First, Last] : Entry.LineRanges)
      if (F.Where.Line >= First && F.Where.Line <= Last)
        return true;
    return false;
  }
  return false;
}

std::string Baseline::key(const Finding &F, llvm::StringRef Directory,
                          PositionResolver &Resolver, std::string *File,
                          std::string *Fingerprint) {
  std::string Relative = pathBelow(F.Where.File, Directory, F.BuildDirectory);
  std::string Hash = lineFingerprint(F.CheckName, Relative,
                                     Resolver.lineText(F.Where.File,
                                                       F.Where.Line));
  std::string Key = F.CheckName + '\0' + Relative + '\0' + Hash;
  if (File)
    *File = std::move(Relative);
  if (Fingerprint)
    *Fingerprint = std::move(Hash);
  return Key;
}

static std::string directoryOf(llvm::StringRef Path) {
  llvm::SmallString<256> Directory(absolutePath(Path, ""));
  llvm::sys::path::remove_filename(Directory);
  return Directory.str().str();
}

llvm::Expected<Baseline> Baseline::load(llvm::StringRef Path) {
  auto Fail = [&](const llvm::Twine &Why) {
    return llvm::createStringError(std::errc::invalid_argument, "%s",
                                   (Path + ": " + Why).str().c_str());
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return Fail("cannot read the baseline: " + Buffer.getError().message());
  llvm::Expected<llvm::json::Value> Json =
      llvm::json::parse((*Buffer)->getBuffer());
  if (!Json)
    return Fail("malformed baseline: " + llvm::toString(Json.takeError()));
  const llvm::json::Object *Root = Json->getAsObject();
  const llvm::json::Array *Findings = Root ? Root->getArray("findings") : nullptr;
  if (!Findings || Root->getInteger("version") != 1)
    return Fail("malformed baseline: expected {\"version\": 1, "
                "\"findings\": [...]}");
  Baseline Result;
  Result.Directory = directoryOf(Path);
  for (size_t I = 0; I < Findings->size(); ++I) {
    const llvm::json::Object *Entry = (*Findings)[I].getAsObject();
    std::optional<llvm::StringRef> Check, File, Fingerprint;
    if (Entry) {
      Check = Entry->getString("check");
      File = Entry->getString("file");
      Fingerprint = Entry->getString("fingerprint");
    }
    if (!Check || !File || !Fingerprint)
      return Fail(llvm::formatv("malformed baseline: findings[{0}] needs "
                                "\"check\", \"file\" and \"fingerprint\"",
                                I));
    ++Result.Remaining[(*Check + llvm::Twine('\0') + *File +
                        llvm::Twine('\0') + *Fingerprint)
                           .str()];
    ++Result.Entries;
  }
  return Result;
}

llvm::Error Baseline::write(llvm::StringRef Path,
                            const std::vector<Finding> &Findings,
                            PositionResolver &Resolver) {
  std::string Directory = directoryOf(Path);
  llvm::json::Array Entries;
  for (const Finding &F : Findings) {
    if (F.isCompilerDiagnostic() || !F.Where.Line)
      continue;
    std::string File, Fingerprint;
    key(F, Directory, Resolver, &File, &Fingerprint);
    Entries.push_back(llvm::json::Object{
        {"check", F.CheckName},
        {"file", File},
        {"fingerprint", Fingerprint},
        {"line", static_cast<int64_t>(F.Where.Line)},
        {"message", F.Message}});
  }
  llvm::json::Value Document = llvm::json::Object{
      {"version", 1}, {"tool", "xfer-tidy"}, {"findings", std::move(Entries)}};
  return llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) {
    writeJson(OS, Document);
    OS << '\n';
    return llvm::Error::success();
  });
}

bool Baseline::consume(const Finding &F, PositionResolver &Resolver) {
  if (F.isCompilerDiagnostic() || !F.Where.Line)
    return false;
  auto It = Remaining.find(key(F, Directory, Resolver));
  if (It == Remaining.end() || It->second == 0)
    return false;
  --It->second;
  return true;
}

} // namespace xfer
