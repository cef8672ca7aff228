/**
 * Text with the user name and password of any URL in it masked (`https://***@host/`): failure reasons,
 * alerts and configuration errors are shown and logged, and a credential must never be.
 */
export function maskUrlCredentials(text: string): string {
  return text.replace(/(\/\/)[^/?#@\s]*@/g, '$1***@');
}
