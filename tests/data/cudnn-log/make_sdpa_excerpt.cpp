// Makes sdpa-operation-cpu-cudnn9.19.log: cuDNN's own attention operation (OPERATION_SDPA_FWD:
// Q, K, V, O, stats and a by-value scale; fp16 [8, 12, 512, 64], BSHD strides) finalized in an
// operation graph and logged, without a GPU.
//   g++ -std=c++17 make_sdpa_excerpt.cpp -I$CUDA/include -L$CUDA/lib -lcudnn -o make_sdpa_excerpt
//   CUDNN_LOGLEVEL_DBG=3 CUDNN_LOGDEST_DBG=sdpa-operation-cpu-cudnn9.19.log ./make_sdpa_excerpt
#include <cudnn.h>
#include <cstdint>
#include <cstdio>
#define C(x)                                                            \
  do {                                                                  \
    auto s = (x);                                                       \
    if (s) printf("%s -> %d %s\n", #x, (int)s, cudnnGetErrorString(s)); \
  } while (0)
cudnnBackendDescriptor_t tensor(int64_t uid, const int64_t* dims, const int64_t* strides, cudnnDataType_t dt,
                                bool byval = false) {
  cudnnBackendDescriptor_t t;
  C(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
  int64_t align = 16;
  C(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt));
  C(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims));
  C(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides));
  C(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
  C(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align));
  if (byval) {
    bool v = true;
    C(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &v));
  }
  C(cudnnBackendFinalize(t));
  return t;
}
int main() {
  int64_t qd[] = {8, 12, 512, 64}, qs[] = {393216, 64, 768, 1};
  int64_t sd[] = {8, 12, 512, 1}, ss[] = {6144, 512, 1, 1};
  int64_t one[] = {1, 1, 1, 1};
  auto q = tensor(1, qd, qs, CUDNN_DATA_HALF), k = tensor(2, qd, qs, CUDNN_DATA_HALF),
       v = tensor(3, qd, qs, CUDNN_DATA_HALF);
  auto o = tensor(4, qd, qs, CUDNN_DATA_HALF), st = tensor(5, sd, ss, CUDNN_DATA_FLOAT),
       sc = tensor(6, one, one, CUDNN_DATA_FLOAT, true);
  cudnnBackendDescriptor_t op;
  C(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR, &op));
  C(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &q));
  C(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &k));
  C(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v));
  C(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &o));
  C(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                             &st));
  C(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                             &sc));
  C(cudnnBackendFinalize(op));
  cudnnBackendDescriptor_t g;
  C(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
  C(cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op));
  C(cudnnBackendFinalize(g));
  return 0;
}
