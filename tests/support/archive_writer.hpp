#pragma once
// Writes test archives, hostile ones included, with libarchive's writer API: absolute and `..`
// paths, links, devices, FIFOs, members whose size is over a cap, bombs.
#include <archive.h>
#include <archive_entry.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace dnnbench::testing {

enum class ArchiveFormat { tar, tar_gz, tar_xz, tar_bz2, zip };

struct ArchiveMember {
  enum class Kind { file, folder, symlink, hardlink, char_device, fifo };
  std::string name;
  std::string data;  // a file's content
  Kind kind = Kind::file;
  std::string link_target;
  // Zero bytes appended after `data`, written in chunks (bombs and huge members).
  std::uint64_t zeros = 0;
  // Leave the size out of the header (zip: streamed entry, size known only at the end).
  bool size_unset = false;
};

inline ArchiveMember file_member(std::string name, std::string data) {
  ArchiveMember m;
  m.name = std::move(name);
  m.data = std::move(data);
  return m;
}

inline ArchiveMember link_member(std::string name, std::string target, ArchiveMember::Kind kind) {
  ArchiveMember m;
  m.name = std::move(name);
  m.link_target = std::move(target);
  m.kind = kind;
  return m;
}

inline void write_archive(const std::filesystem::path& path, ArchiveFormat format,
                          const std::vector<ArchiveMember>& members) {
  struct archive* a = archive_write_new();
  auto check = [&](int status, const char* what) {
    if (status < ARCHIVE_WARN) {
      const std::string message =
          std::string(what) + ": " + (archive_error_string(a) ? archive_error_string(a) : "?");
      archive_write_free(a);
      throw std::runtime_error(message);
    }
  };
  if (format == ArchiveFormat::zip) {
    check(archive_write_set_format_zip(a), "zip format");
  } else {
    check(archive_write_set_format_pax_restricted(a), "tar format");
    if (format == ArchiveFormat::tar_gz) check(archive_write_add_filter_gzip(a), "gzip");
    if (format == ArchiveFormat::tar_xz) check(archive_write_add_filter_xz(a), "xz");
    if (format == ArchiveFormat::tar_bz2) check(archive_write_add_filter_bzip2(a), "bzip2");
  }
  check(archive_write_open_filename(a, path.c_str()), "open");
  const std::string zeros(64 << 10, '\0');
  for (const auto& m : members) {
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, m.name.c_str());
    archive_entry_set_perm(e, 0644);
    using K = ArchiveMember::Kind;
    switch (m.kind) {
      case K::file:
        archive_entry_set_filetype(e, AE_IFREG);
        if (!m.size_unset) archive_entry_set_size(e, static_cast<la_int64_t>(m.data.size() + m.zeros));
        break;
      case K::folder:
        archive_entry_set_filetype(e, AE_IFDIR);
        archive_entry_set_perm(e, 0755);
        break;
      case K::symlink:
        archive_entry_set_filetype(e, AE_IFLNK);
        archive_entry_set_symlink(e, m.link_target.c_str());
        break;
      case K::hardlink:
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_hardlink(e, m.link_target.c_str());
        archive_entry_set_size(e, 0);
        break;
      case K::char_device:
        archive_entry_set_filetype(e, AE_IFCHR);
        archive_entry_set_rdev(e, 0x0103);  // /dev/null's numbers
        break;
      case K::fifo:
        archive_entry_set_filetype(e, AE_IFIFO);
        break;
    }
    const int status = archive_write_header(a, e);
    archive_entry_free(e);
    check(status, "header");
    if (m.kind == K::file) {
      if (!m.data.empty()) archive_write_data(a, m.data.data(), m.data.size());
      for (std::uint64_t left = m.zeros; left > 0;) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(left, zeros.size()));
        archive_write_data(a, zeros.data(), n);
        left -= n;
      }
    }
  }
  check(archive_write_close(a), "close");
  archive_write_free(a);
}

}  // namespace dnnbench::testing
