#include "chat/assets.h"

#include "base/error.h"

namespace qgpu::chat {

std::string_view chat_asset(std::string_view path) {
  for (const Asset& a : chat_assets())
    if (a.path == path) return a.text;
  throw Error(fmt::format("{}: not embedded in this qgpu binary (rebuild: cmake re-globs the chat assets)", path));
}

}  // namespace qgpu::chat
