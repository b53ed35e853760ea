/*
** trace_args.c — field interpretation helpers for the trace loader:
** memcpy kinds, step numbers, FLOP estimates from shapes.
**
** Pipeline position: "normalize".
*/
#include "trace/trace_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copy at most nOut-1 bytes of z[0..n) into zOut. */
static void copy_word(const char *z, size_t n, char *zOut, size_t nOut){
  if( n>=nOut ) n = nOut-1;
  memcpy(zOut, z, n);
  zOut[n] = 0;
}

void trace_args_memcpy_kind(const char *zName, MemcpyKind *p){
  const char *z, *zOpen, *zArrow, *zClose;
  memset(p, 0, sizeof(*p));
  z = strstr(zName, "Memcpy ");
  if( z ){
    const char *zDir = z + 7;
    size_t n = strcspn(zDir, " (");
    copy_word(zDir, n, p->zDirection, sizeof(p->zDirection));
  }
  zOpen = strchr(zName, '(');
  if( zOpen==NULL ) return;
  zClose = strchr(zOpen, ')');
  if( zClose==NULL ) return;
  zArrow = strstr(zOpen, " -> ");
  if( zArrow && zArrow<zClose ){
    copy_word(zOpen+1, (size_t)(zArrow-zOpen-1), p->zSrc, sizeof(p->zSrc));
    copy_word(zArrow+4, (size_t)(zClose-zArrow-4), p->zDst, sizeof(p->zDst));
  }else{
    copy_word(zOpen+1, (size_t)(zClose-zOpen-1), p->zDst, sizeof(p->zDst));
  }
}

int64_t trace_args_step_number(const char *zName){
  const char *z;
  char *zEnd;
  long long v;
  if( strncmp(zName, "ProfilerStep", 12)!=0 ) return -1;
  z = zName + 12;
  while( *z==' ' ) z++;
  if( *z!='#' ) return -1;
  z++;
  while( *z==' ' ) z++;
  if( *z<'0' || *z>'9' ) return -1;
  v = strtoll(z, &zEnd, 10);
  if( *zEnd!=0 || v<0 ) return -1;
  return v;
}

int trace_args_parse_dims(const char *z, int nMax, int64_t aDims[][8],
                     int *anDim){
  int n = 0;
  while( *z==' ' ) z++;
  if( *z!='[' ) return 0;
  z++;
  while( n<nMax ){
    while( *z==' ' || *z==',' ) z++;
    if( *z!='[' ) break;
    z++;
    anDim[n] = 0;
    for(;;){
      char *zEnd;
      long long v;
      while( *z==' ' || *z==',' ) z++;
      if( *z==']' ){ z++; break; }
      if( (*z<'0' || *z>'9') && *z!='-' ) return n;   /* nested or odd */
      v = strtoll(z, &zEnd, 10);
      if( zEnd==z ) return n;
      z = zEnd;
      if( anDim[n]<8 ) aDims[n][anDim[n]++] = v;
    }
    n++;
  }
  return n;
}

/* 2*M*K*N for a [M,K] x [K,N] product given the two shapes, or -1. */
static double mm_flops(const int64_t *a, int na, const int64_t *b, int nb,
                       int batched){
  double batch = 1;
  if( batched ){
    if( na!=3 || nb!=3 || a[0]!=b[0] ) return -1;
    batch = (double)a[0];
    a++; b++;
  }else if( na!=2 || nb!=2 ){
    return -1;
  }
  if( a[1]!=b[0] ) return -1;
  return 2.0 * batch * (double)a[0] * (double)a[1] * (double)b[1];
}

double trace_args_estimate_flops(const char *zOpName, const char *zInputDims){
  int64_t aDims[4][8];
  int anDim[4] = {0, 0, 0, 0};
  int n;
  if( zInputDims==NULL || zInputDims[0]==0 ) return -1;
  if( strcmp(zOpName, "aten::mm")==0
   || strcmp(zOpName, "aten::_scaled_mm")==0 ){
    n = trace_args_parse_dims(zInputDims, 2, aDims, anDim);
    return n==2 ? mm_flops(aDims[0], anDim[0], aDims[1], anDim[1], 0) : -1;
  }
  if( strcmp(zOpName, "aten::addmm")==0 ){
    n = trace_args_parse_dims(zInputDims, 3, aDims, anDim);
    return n==3 ? mm_flops(aDims[1], anDim[1], aDims[2], anDim[2], 0) : -1;
  }
  if( strcmp(zOpName, "aten::bmm")==0 ){
    n = trace_args_parse_dims(zInputDims, 2, aDims, anDim);
    return n==2 ? mm_flops(aDims[0], anDim[0], aDims[1], anDim[1], 1) : -1;
  }
  if( strcmp(zOpName, "aten::baddbmm")==0 ){
    n = trace_args_parse_dims(zInputDims, 3, aDims, anDim);
    return n==3 ? mm_flops(aDims[1], anDim[1], aDims[2], anDim[2], 1) : -1;
  }
  if( strcmp(zOpName, "aten::addbmm")==0 ){
    n = trace_args_parse_dims(zInputDims, 3, aDims, anDim);
    return n==3 ? mm_flops(aDims[1], anDim[1], aDims[2], anDim[2], 1) : -1;
  }
  return -1;
}
