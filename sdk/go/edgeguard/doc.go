// Page security, CSP policies, custom hostnames and load-balancing health alerts of EdgeGuard's edge service, as code.
package edgeguard
