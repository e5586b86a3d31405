#include "connector_state_dir.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cctype>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "json_text.h"

namespace ksink {
namespace {

// A connector's name as a file name: letters, digits, '.', '_' and '-' kept, the rest %XX.
std::string fileName(std::string_view name) {
  std::string out;
  for (const unsigned char ch : name) {
    if (std::isalnum(ch) || ch == '.' || ch == '_' || ch == '-')
      out += static_cast<char>(ch);
    else
      out += fmt::format("%{:02X}", ch);
  }
  return out + ".json";
}

const std::string* textOf(const Value* value) {
  return value && value->kind() == Value::Kind::kString ? &value->asString() : nullptr;
}

ConnectorStateDir::Entry entryOf(const std::filesystem::path& file) {
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  const auto kept = Value::object(parseJsonObject(text));
  const auto* name = textOf(kept.find("name"));
  if (!name) throw std::invalid_argument("no name");
  ConnectorStateDir::Entry out{*name, false, {}, "RUNNING"};
  if (const auto* deleted = kept.find("deleted"); deleted && !deleted->isNull()) {
    out.deleted = true;
    return out;
  }
  if (const auto* values = kept.find("config"); values && values->kind() == Value::Kind::kObject)
    for (const auto& [key, value] : values->asObject())
      if (const auto* text = textOf(&value)) out.config[key] = *text;
  if (const auto* state = textOf(kept.find("state"))) out.state = *state;
  return out;
}

}  // namespace

void ConnectorStateDir::keep(const std::string& name,
                             const std::map<std::string, std::string>& config,
                             const std::string& state) const {
  write(name, fmt::format(R"({{"name":{},"config":{},"state":{}}})", jsonText(name),
                          jsonMap(config), jsonText(state)));
}

void ConnectorStateDir::keepDeleted(const std::string& name) const {
  write(name, fmt::format(R"({{"name":{},"deleted":true}})", jsonText(name)));
}

void ConnectorStateDir::write(const std::string& name, const std::string& json) const {
  if (dir_.empty()) return;
  try {
    std::filesystem::create_directories(dir_);
    const auto path = dir_ / fileName(name);
    const auto temporary = path.string() + ".tmp";
    {
      std::ofstream out(temporary, std::ios::trunc);
      out << json << "\n";
      out.flush();
      if (!out) throw std::runtime_error("cannot write " + temporary);
    }
    std::filesystem::rename(temporary, path);
  } catch (const std::exception& e) {
    spdlog::error("connector {}: the change is not kept in {}: {}", name, dir_.string(), e.what());
  }
}

std::vector<ConnectorStateDir::Entry> ConnectorStateDir::read() const {
  std::vector<Entry> out;
  if (dir_.empty() || !std::filesystem::is_directory(dir_)) return out;
  for (const auto& file : std::filesystem::directory_iterator(dir_)) {
    if (file.path().extension() != ".json") continue;
    try {
      out.push_back(entryOf(file.path()));
    } catch (const std::exception& e) {
      spdlog::error("{}: not restored: {}", file.path().string(), e.what());
    }
  }
  return out;
}

}  // namespace ksink
