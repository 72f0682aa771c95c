//===- CudaLaunchSpelling.cpp - nvcc's spaced launch brackets -------------===//

#include "CudaLaunchSpelling.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

namespace xfer {
namespace {

bool isBlank(char C) { return C == ' ' || C == '\t' || C == '\n' || C == '\r'; }

/// Whether the bytes before \p Pos end in the keyword `operator` (so the `<<`
/// at \p Pos names the shift operator, as in `operator<< <T>`).
bool followsOperatorKeyword(llvm::StringRef Text, size_t Pos) {
  size_t End = Pos;
  while (End > 0 && isBlank(Text[End - 1]))
    --End;
  llvm::StringRef Before = Text.take_front(End);
  if (!Before.ends_with("operator"))
    return false;
  size_t Start = End - llvm::StringRef("operator").size();
  return Start == 0 ||
         !(llvm::isAlnum(Text[Start - 1]) || Text[Start - 1] == '_');
}

/// Moves the blanks between \p First (the second character of a two-character
/// bracket) and the third bracket character at \p Third after it:
/// `<< <` becomes `<<< `. Offsets outside [First, Third] are unchanged.
void joinAt(std::string &Text, size_t First, size_t Third) {
  char Bracket = Text[Third];
  for (size_t I = Third; I > First + 1; --I)
    Text[I] = Text[I - 1];
  Text[First + 1] = Bracket;
}

} // namespace

std::optional<std::string> joinSpacedLaunchBrackets(llvm::StringRef Text) {
  std::optional<std::string> Joined;
  size_t Pos = 0;
  while ((Pos = Text.find("<<", Pos)) != llvm::StringRef::npos) {
    size_t Third = Pos + 2;
    while (Third < Text.size() && isBlank(Text[Third]))
      ++Third;
    if (Third == Pos + 2 || Third >= Text.size() || Text[Third] != '<' ||
        followsOperatorKeyword(Text, Pos)) {
      Pos += 2;
      continue;
    }
    if (!Joined)
      Joined = Text.str();
    joinAt(*Joined, Pos + 1, Third);
    // The closing brackets: the first `>>` before the statement ends.
    size_t Close = Third;
    while (Close + 1 < Text.size() && Text[Close] != ';' &&
           Text[Close] != '{' &&
           !(Text[Close] == '>' && Text[Close + 1] == '>'))
      ++Close;
    if (Close + 1 < Text.size() && Text[Close] == '>') {
      size_t CloseThird = Close + 2;
      while (CloseThird < Text.size() && isBlank(Text[CloseThird]))
        ++CloseThird;
      if (CloseThird > Close + 2 && CloseThird < Text.size() &&
          Text[CloseThird] == '>')
        joinAt(*Joined, Close + 1, CloseThird);
      Pos = CloseThird;
    } else {
      Pos = Close;
    }
  }
  return Joined;
}

namespace {

class JoinedLaunchFile : public llvm::vfs::File {
public:
  explicit JoinedLaunchFile(std::unique_ptr<llvm::vfs::File> Underlying)
      : Underlying(std::move(Underlying)) {}

  llvm::ErrorOr<llvm::vfs::Status> status() override {
    return Underlying->status();
  }
  llvm::ErrorOr<std::string> getName() override {
    return Underlying->getName();
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>
  getBuffer(const llvm::Twine &Name, int64_t FileSize,
            bool RequiresNullTerminator, bool IsVolatile) override {
    auto Buffer = Underlying->getBuffer(Name, FileSize, RequiresNullTerminator,
                                        IsVolatile);
    if (!Buffer)
      return Buffer;
    std::optional<std::string> Joined =
        joinSpacedLaunchBrackets((*Buffer)->getBuffer());
    if (!Joined)
      return Buffer;
    return llvm::MemoryBuffer::getMemBufferCopy(
        *Joined, (*Buffer)->getBufferIdentifier());
  }
  std::error_code close() override { return Underlying->close(); }

private:
  std::unique_ptr<llvm::vfs::File> Underlying;
};

class LaunchSpellingFileSystem : public llvm::vfs::ProxyFileSystem {
public:
  using ProxyFileSystem::ProxyFileSystem;

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>>
  openFileForRead(const llvm::Twine &Path) override {
    auto File = ProxyFileSystem::openFileForRead(Path);
    if (!File)
      return File;
    return std::make_unique<JoinedLaunchFile>(std::move(*File));
  }
};

} // namespace

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> createLaunchSpellingFileSystem(
    llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Base) {
  return llvm::makeIntrusiveRefCnt<LaunchSpellingFileSystem>(std::move(Base));
}

} // namespace xfer
