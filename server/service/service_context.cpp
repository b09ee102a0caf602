#include "server/service/service_context.h"

namespace tsserve::server {

grpc::Status authenticate(const ServiceContext& service, const grpc::ServerContextBase& context) {
  return service.auth ? service.auth->check(context) : grpc::Status::OK;
}

}  // namespace tsserve::server
