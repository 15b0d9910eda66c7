#include "silt/io/file_system.h"

#include <string>

#include "silt/base/check.h"

namespace silt::io {

void RandomAccessFile::ReadExactly(uint64_t offset, size_t length, void* out) {
  size_t got = ReadAt(offset, length, out);
  if (got != length) {
    SILT_THROW(IO_ERROR,
               {{"path", path()},
                {"message", "short read: wanted " + std::to_string(length) + " bytes at offset " +
                                std::to_string(offset) + ", got " + std::to_string(got) +
                                " (file size " + std::to_string(Size()) + ")"}});
  }
}

std::string RandomAccessFile::ReadAll() {
  uint64_t size = Size();
  std::string content(static_cast<size_t>(size), '\0');
  ReadExactly(0, content.size(), content.data());
  return content;
}

bool FileSystem::DeleteEmptyFolder(const std::string&) { return false; }

void FileSystem::WriteFile(const std::string& path, std::string_view bytes) {
  std::unique_ptr<OutputStream> stream = OpenWrite(path);
  stream->Write(bytes);
  stream->Sync();
  stream->Close();
}

std::string FileSystem::ReadFile(const std::string& path) { return OpenRead(path)->ReadAll(); }

}  // namespace silt::io
