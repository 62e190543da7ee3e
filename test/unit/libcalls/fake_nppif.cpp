// A stand-in for libnppif.so.13 on the host test device (CI has no GPU
// and no NPP): marker label compression that reports what reached it of
// the application's NppStreamContext (`k`): its fields as the client set
// them, and whether its stream is one (a created stream is the server's
// own, not null; the legacy stream stays null).
#include <npp.h>

extern "C" {

NppStatus nppiCompressMarkerLabelsGetBufferSize_32u_C1R(int, int *size) {
  *size = 64;
  return NPP_SUCCESS;
}

NppStatus nppiCompressMarkerLabelsUF_32u_C1IR_Ctx(Npp32u *, int, NppiSize, int,
                                                  int *pNewNumber, Npp8u *,
                                                  NppStreamContext ctx) {
  *pNewNumber = ctx.nMultiProcessorCount * 1000 + ctx.nStreamFlags * 10 +
                (ctx.hStream != nullptr);
  return NPP_SUCCESS;
}

} // extern "C"
