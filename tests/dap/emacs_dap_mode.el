;;; emacs_dap_mode.el --- drives editors/emacs/tracepilot-dap.el in a headless Emacs (test_emacs_dap_mode.py)
;; Environment: TP_DAP_EL (the configuration), TP_SOURCE and TP_LOG_LINE (a logpoint), TP_CLASSES, TP_SOURCES.
;; Prints "TP-OUTPUT: ..." (the session's output buffer) and "TP-DONE" at the end; errors exit non-zero.

(setq debug-on-error t)
(load (getenv "TP_DAP_EL"))
(require 'dap-ui)

(defvar tp-stops 0)
(add-hook 'dap-stopped-hook (lambda (_session) (setq tp-stops (1+ tp-stops))))

(defun tp-wait (what pred seconds)
  (let ((end (+ (float-time) seconds)))
    (while (and (not (funcall pred)) (< (float-time) end))
      (accept-process-output nil 0.1))
    (unless (funcall pred) (error "timed out waiting for %s" what))))

;; A logpoint (dap-breakpoint-log-message asks for its text; here it is given).
(find-file (getenv "TP_SOURCE"))
(goto-char (point-min))
(forward-line (1- (string-to-number (getenv "TP_LOG_LINE"))))
(dap-breakpoint-add)
(plist-put (car (gethash buffer-file-name (dap--get-breakpoints))) :log-message "ready with {args.length} args")
;; Stop where an exception escapes main (the "Uncaught Exceptions" filter).
(setq dap-exception-breakpoints '(("tracepilot" . (("uncaught" . t)))))

(dap-debug (list :type "tracepilot" :request "launch" :name "tracepilot-test"
                 :mainClass "fixtures.Causes" :classPaths (vector (getenv "TP_CLASSES"))
                 :sourcePaths (vector (getenv "TP_SOURCES"))))
(tp-wait "the exception stop" (lambda () (> tp-stops 0)) 40)
(accept-process-output nil 1)  ; the exceptionInfo answer
(let ((session (dap--cur-session)))
  (with-current-buffer (dap--debug-session-output-buffer session)
    (princ (format "TP-OUTPUT: %S\n" (buffer-string))))
  (dap-disconnect session))
(accept-process-output nil 1)
(princ "TP-DONE\n")
