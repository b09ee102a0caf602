#include "server/call/service_context.h"

namespace tsserve::server {

Status authenticate(const ServiceContext& service, std::optional<std::string_view> authorization,
                    std::size_t count) {
  return service.auth ? service.auth->check_header(authorization, count) : Status();
}

}  // namespace tsserve::server
