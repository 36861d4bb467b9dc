/**
 * The controller CA chain as served by `GET /.well-known/est/cacerts` (RFC 7030 §4.1.3): a
 * certs-only ("degenerate") PKCS#7 SignedData, DER, base64.
 */
import * as cms from '@peculiar/asn1-cms';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import * as x509 from '@peculiar/x509';

/**
 * Builds the base64 DER PKCS#7 of `certPems` (each may hold several certificates). Shaped like
 * Go's `pkcs7.DegenerateCertificate`, which the OpenZiti controller serves: version 1, no
 * digest algorithms, encapsulated content of type data with the content omitted, no signers.
 * (@peculiar/x509's own export embeds an empty eContent, which some parsers treat differently.)
 */
export function caCertsPkcs7Base64(certPems: string[]): string {
  const certificates = certPems
    .flatMap((pem) => x509.PemConverter.decode(pem))
    .map((der) => new cms.CertificateChoices({ certificate: AsnConvert.parse(der, Certificate) }));
  const signedData = new cms.SignedData({
    version: cms.CMSVersion.v1,
    encapContentInfo: new cms.EncapsulatedContentInfo({ eContentType: cms.id_data }),
    certificates: new cms.CertificateSet(certificates),
  });
  const contentInfo = new cms.ContentInfo({ contentType: cms.id_signedData, content: AsnConvert.serialize(signedData) });
  return Buffer.from(AsnConvert.serialize(contentInfo)).toString('base64');
}

/** Concatenates PEM blocks with exactly one newline between and after them. */
export function joinPem(pems: string[]): string {
  return pems.map((p) => p.trim()).join('\n') + '\n';
}
