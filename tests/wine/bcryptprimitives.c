/* A test-only stand-in for Windows' bcryptprimitives.dll, so that spindle.exe runs under Wine 8.0.
 *
 * Rust's standard library (1.78 and later) draws its random numbers from ProcessPrng, which it
 * imports from bcryptprimitives.dll (Windows 10 and later). Wine 8.0 has no such DLL, so the
 * loader refuses the exe before main: it exits 53 (STATUS_DLL_NOT_FOUND) and prints nothing.
 * Wine looks for DLLs in the exe's folder first; this one, placed there, exports ProcessPrng
 * over RtlGenRandom (advapi32's SystemFunction036), which Wine has. Never shipped: a real
 * Windows has the DLL.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x7fffffff ? 0x7fffffff : (ULONG)len;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
