/*
** cli.c — option parsing and error helpers shared by the command handlers.
**
** Pipeline position: front end.  Options are removed from the argument
** list as they are read (Fossil's find_option), so what remains are the
** positional arguments, and leftovers starting with '-' are errors.
*/
#include "cli/cli.h"
#include "core/db.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_error(const char *zFmt, ...){
  va_list ap;
  va_start(ap, zFmt);
  util_vmessage(zFmt, ap);
  va_end(ap);
}

void cli_usage_error(Cli *p, const char *zFmt, ...){
  va_list ap;
  va_start(ap, zFmt);
  util_vmessage(zFmt, ap);
  va_end(ap);
  if( p->pCmd ){
    fprintf(stderr, "usage: profan %s\n", p->pCmd->zUsage);
    fprintf(stderr, "try 'profan %s --help' for more information\n",
            p->pCmd->zName);
  }else{
    fprintf(stderr, "try 'profan --help' for more information\n");
  }
  exit(EXIT_USAGE);
}

/* Remove argv[i..i+n) from the argument list. */
static void remove_args(Cli *p, int i, int n){
  memmove(&p->argv[i], &p->argv[i+n], (size_t)(p->argc-i-n+1)*sizeof(char*));
  p->argc -= n;
}

const char *cli_option(Cli *p, const char *zLong, const char *zShort,
                       int hasArg){
  size_t nLong = strlen(zLong);
  for(int i=1; i<p->argc; i++){
    char *z = p->argv[i];
    if( strcmp(z, "--")==0 ) break;
    if( z[0]!='-' ) continue;
    if( (strncmp(z, "--", 2)==0 && strncmp(z+2, zLong, nLong)==0
         && (z[2+nLong]==0 || (hasArg && z[2+nLong]=='=')))
        || (zShort && z[1]==zShort[0] && z[2]==0) ){
      if( !hasArg ){
        remove_args(p, i, 1);
        return "";
      }
      if( strncmp(z, "--", 2)==0 && z[2+nLong]=='=' ){
        const char *zVal = z+3+nLong;
        remove_args(p, i, 1);
        return zVal;
      }
      if( i+1>=p->argc ){
        cli_usage_error(p, "option %s needs a value", z);
      }
      {
        const char *zVal = p->argv[i+1];
        remove_args(p, i, 2);
        return zVal;
      }
    }
  }
  return NULL;
}

void cli_verify_options(Cli *p){
  for(int i=1; i<p->argc; i++){
    if( strcmp(p->argv[i], "--")==0 ){
      remove_args(p, i, 1);
      return;
    }
    if( p->argv[i][0]=='-' && p->argv[i][1]!=0 ){
      char z[64];
      util_sanitize(p->argv[i], strlen(p->argv[i]), z, sizeof(z));
      cli_usage_error(p, "unknown option %s", z);
    }
  }
}

sqlite3 *cli_open_db_or_exit(Cli *p, int flags, int code){
  PfError e = {0};
  sqlite3 *db = db_open(p->zDb, flags, &e);
  if( db==NULL ){
    cli_error("%s: %s", p->zDb, e.zMsg);
    exit(code);
  }
  return db;
}

sqlite3 *cli_open_db(Cli *p, int flags){
  return cli_open_db_or_exit(p, flags, EXIT_BAD);
}

const char *cli_section(Cli *p, const char *const *azName, int nName){
  const char *z = cli_option(p, "section", NULL, 1);
  Buf b;
  int i;
  buf_init(&b);
  for(i=0; i<nName; i++) buf_printf(&b, "%s%s", i ? ", " : "", azName[i]);
  if( z ){
    for(i=0; i<nName && strcmp(z, azName[i]); i++){}
    if( i==nName ){
      char zS[64];
      util_sanitize(z, strlen(z), zS, sizeof(zS));
      cli_usage_error(p, "no section '%s' (sections: %s)", zS, buf_str(&b));
    }
  }else if( p->eFmt==OUT_CSV ){
    cli_usage_error(p, "--format csv prints one table: add --section NAME"
                    " (%s)", buf_str(&b));
  }
  buf_free(&b);
  return z;
}
